/** Clamp's icon (the header's square) with a round badge holding the count, drawn on a canvas, as a PNG data URL. */
export function badgedIcon(count: number, size = 32): string | null {
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const g = canvas.getContext('2d');
  if (!g) return null;
  const u = size / 32;
  g.fillStyle = '#0284c7';
  g.beginPath();
  g.roundRect(3 * u, 3 * u, 22 * u, 22 * u, 4 * u);
  g.fill();
  const r = 9.5 * u;
  g.fillStyle = '#dc2626';
  g.beginPath();
  g.arc(size - r, size - r, r, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = '#ffffff';
  g.font = `bold ${(count > 9 ? 11 : 14) * u}px sans-serif`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(count > 99 ? '99+' : String(count), size - r, size - r + u);
  return canvas.toDataURL('image/png');
}

const ORIGINAL = 'data-clamp-original-href';
const ORIGINAL_TYPE = 'data-clamp-original-type';

/** Show the badged icon as the tab's icon (count > 0), or put the page's own icons back (0). */
export function setFaviconBadge(count: number): void {
  const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel~="icon"]')];
  const badge = count > 0 ? badgedIcon(count) : null;
  if (links.length === 0 && badge) {
    const link = document.createElement('link');
    link.rel = 'icon';
    link.setAttribute(ORIGINAL, '');
    document.head.appendChild(link);
    links.push(link);
  }
  for (const link of links) {
    if (badge) {
      if (!link.hasAttribute(ORIGINAL)) {
        link.setAttribute(ORIGINAL, link.getAttribute('href') ?? '');
        link.setAttribute(ORIGINAL_TYPE, link.type);
      }
      link.type = 'image/png';
      link.href = badge;
    } else if (link.hasAttribute(ORIGINAL)) {
      const href = link.getAttribute(ORIGINAL) ?? '';
      const type = link.getAttribute(ORIGINAL_TYPE) ?? '';
      link.removeAttribute(ORIGINAL);
      link.removeAttribute(ORIGINAL_TYPE);
      if (!href) link.remove();
      else {
        link.href = href;
        link.type = type;
      }
    }
  }
}
