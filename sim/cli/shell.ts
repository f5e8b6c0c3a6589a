/** Commands the CLI prints for a user to paste (rerun, replay): words quoted as a POSIX shell reads them back. */

/** A word as a POSIX shell reads it back: as is when it is plain, else single-quoted. */
export const shellWord = (word: string): string => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)

/**
 * A path given to a clearsim command, as a shell word that the command reads as that path: a relative path that
 * begins with `-` (`-runs/trace.jsonl`) would be read as a flag (`Unrecognized flag: -r`), so it is written
 * `./-runs/trace.jsonl`, the same file.
 */
export const pathWord = (path: string): string => shellWord(path.startsWith("-") ? `./${path}` : path)
