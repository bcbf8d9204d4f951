/**
 * A call's input in one line, for a card whose tool sent no summary (a message stored before tools
 * declared one, or a call to a tool Clamp does not know): compact JSON, cut to fit the line.
 */
export function inputLine(input: unknown): string {
  const json = JSON.stringify(input ?? {}) ?? '';
  return json === '{}' ? '' : json.length > 160 ? `${json.slice(0, 160)}…` : json;
}
