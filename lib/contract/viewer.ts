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
  /** the 1-based number of the page's first line; null while a huge file is still being counted */
  firstLine: number | null;
  /** the lines of the file as it was when read (a last line without a newline counts); null while still being counted */
  totalLines: number | null;
}

/** One place a searched text occurs: its line (the byte offset where the line begins, its 1-based number) and where in the line, in UTF-16 units as the page's strings count. */
export interface LogMatch {
  offset: number;
  line: number;
  column: number;
  length: number;
}

/** GET /api/files/search and GET /api/tasks/[id]/log/search: where a text occurs in the whole file (case ignored), as it was when searched. */
export interface LogSearchAnswer {
  query: string;
  /** the first matches in file order */
  matches: LogMatch[];
  /** every match in the bytes searched: more than listed when the list was cut */
  total: number;
  searchedBytes: number;
  totalBytes: number;
  /** null when the whole file was searched; else the bound that stopped the search */
  stoppedBy: 'bytes' | 'time' | null;
}
