import type { Metadata } from 'next';
import type { ReactNode } from 'react';
// the highlight.js theme ships with the package and is bundled: nothing loads from the network
import 'highlight.js/styles/github.css';
import './globals.css';
import { Providers } from './providers';

export const metadata: Metadata = {
  title: 'Clamp',
  description: 'A coding agent on your own machine',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="h-screen overflow-hidden bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
