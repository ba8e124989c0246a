/**
 * The service's "no number in output" rule: text that a caller chose (a correlation id, a name quoted in an
 * error) is never repeated when it holds six or more digits in a row, whatever separates them. A CPR number
 * written `010190-1234`, `010190.1234`, `01 01 90 1234` or `0101901234` is such a run, and so is a birth date
 * (`01.01.90`); a letter ends a run. Digits of every script count (`０１０１９０` too).
 */
const NUMBER_RUN = /\p{Nd}(?:[^\p{L}\p{Nd}]*\p{Nd}){5}/u;

/** Whether the text holds a run of six or more digits (separators between them ignored, letters not). */
export function hasNumberRun(text: string): boolean {
  return NUMBER_RUN.test(text);
}

const NUMBER_RUNS = /\p{Nd}(?:[^\p{L}\p{Nd}]*\p{Nd}){5,}/gu;
const DIGIT = /\p{Nd}/gu;

/** The text with every digit of every such run replaced by `*` (`E-010190-1234` → `E-******-****`); other characters kept. */
export function maskNumberRuns(text: string): string {
  return text.replace(NUMBER_RUNS, (run) => run.replace(DIGIT, '*'));
}
