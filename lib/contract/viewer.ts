/**
 * The full-output viewer's protocol: pages of a (possibly huge) spilled output or task log in the data
 * dir, as GET /api/files and GET /api/tasks/[id]/log answer them.
 */

/** One page of a file, cut on line boundaries. Ask again from nextOffset for more. */
export interface FilePage {
  path: string;
  /** the page's text, UTF-8 decoded */
  text: string;
  /** byte offset where text starts */
  offset: number;
  /** byte offset to ask for next */
  nextOffset: number;
  /** the file's size in bytes when the page was read */
  totalBytes: number;
  /** text reaches the end of the file (as it was when read) */
  eof: boolean;
}
