/** Commands the CLI prints for a user to paste (rerun, replay): words quoted as a POSIX shell reads them back. */

/** A word as a POSIX shell reads it back: as is when it is plain, else single-quoted. */
export const shellWord = (word: string): string => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)
