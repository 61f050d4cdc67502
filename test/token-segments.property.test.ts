import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadTokenCounter } from "../src/tokens/count-tokens";
import { blocksOf, memoizedCounter, segmentsOf } from "../src/tokens/segments";

/** The service's own counter, which counts special-token strings as plain text. */
const countTokens = await loadTokenCounter();

/**
 * The envelope's count is taken piece by piece with remembered counts; it must equal the tokenizer's
 * count of the whole text, whatever the text holds, or the budget guarantee would rest on an estimate.
 */
const fragment = fc.constantFrom(
  "a",
  "Zed",
  " ",
  "  ",
  "\n",
  "\n\n",
  "\r\n",
  "\t",
  ".",
  "-",
  "- ",
  "## ",
  "(",
  ")",
  "'s",
  "'",
  "1",
  "234",
  "é",
  "日本",
  "😀",
  "$",
  "%",
  " \n",
  "\n ",
  "\u00a0",
  "\u2028",
  "[superseded]",
  "<untrusted_data>",
  "<|endoftext|>",
  "<|im_start|>",
  "<|im_end|>",
  "<|fim_prefix|>",
);
const text = fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join(""));

describe("line-aligned token counting", () => {
  it("cuts a text into pieces that join back into it", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(segmentsOf(t).join("")).toBe(t);
      }),
    );
  });

  it("cuts a text into blocks that join back into it, each cut also a piece boundary", () => {
    fc.assert(
      fc.property(text, (t) => {
        const blocks = blocksOf(t);
        expect(blocks.join("")).toBe(t);
        const pieceStarts = new Set<number>();
        let at = 0;
        for (const piece of segmentsOf(t)) {
          pieceStarts.add(at);
          at += piece.length;
        }
        at = 0;
        for (const block of blocks) {
          expect(pieceStarts.has(at)).toBe(true);
          at += block.length;
        }
      }),
    );
  });

  it("counts texts of many blocks exactly, with blocks and pieces remembered across texts", () => {
    const memo = new Map<string, number>();
    const count = memoizedCounter(countTokens, memo, 1000);
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 2, maxLength: 8 }),
        fc.constantFrom("\n\n", "\n\n\n"),
        (texts, gap) => {
          // Sections as an envelope joins them, some of them seen in earlier runs.
          const joined = texts.map((t, i) => `## S${i % 3}\n${t}`).join(gap);
          expect(count(joined)).toBe(countTokens(joined));
          expect(count(joined)).toBe(countTokens(joined));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("counts exactly what the tokenizer counts for the whole text, memo warm or cold", () => {
    const memo = new Map<string, number>();
    const count = memoizedCounter(countTokens, memo, 1000);
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) => {
        for (const t of texts) expect(count(t)).toBe(countTokens(t));
        const joined = texts.join("\n");
        expect(count(joined)).toBe(countTokens(joined));
      }),
      { numRuns: 500 },
    );
  });

  it("counts lines joined by line breaks exactly, without joining them, memo warm or cold", () => {
    const memo = new Map<string, number>();
    const count = memoizedCounter(countTokens, memo, 1000);
    // An envelope's lines: section titles, bulleted lines, lines that continue the one before (a space,
    // a non-ASCII letter), empty ones between sections, and lines that hold line breaks themselves.
    const line = fc.oneof(
      text,
      text.map((t) => `- ${t}`),
      fc.constantFrom("", "## Facts", " indented", "é"),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const joined = lines.join("\n");
        expect(count.lines(lines)).toBe(countTokens(joined));
        // Again, with every line's count remembered, and as the text itself.
        expect(count.lines(lines)).toBe(countTokens(joined));
        expect(count(joined)).toBe(countTokens(joined));
      }),
      { numRuns: 1000 },
    );
  });
});
