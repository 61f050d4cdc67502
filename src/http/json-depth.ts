/**
 * Where a JSON text first nests deeper than a limit, found without parsing it. JSON.parse, and every
 * recursive walk of what it returns (validation, serialisation, rendering), can overflow the stack on
 * deep enough input, so the depth is measured on the raw text with a loop: brackets are counted
 * outside strings, and the key or index each open container is at is kept so the answer can name the
 * field. Malformed text is not judged here (the parser rejects it later); the scan only never throws.
 */

interface Frame {
  array: boolean;
  /** Array: the index of the element being read. */
  index: number;
  /** Object: where the raw text of the current key starts and ends (quotes included). */
  keyStart: number;
  keyEnd: number;
  /** Object: whether the next string is a key. */
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** A key is shown at most this long in a path: the path goes into an error, not back into storage. */
const KEY_SHOWN = 64;

/**
 * The path (segments, as validation errors name fields) of the first container nested deeper than
 * `maxDepth`, or undefined when the text stays within it. The top-level value is at depth 1.
 */
export function tooDeepAt(text: string, maxDepth: number): string[] | undefined {
  const frames: Frame[] = [];
  let inString = false;
  let escaped = false;
  let stringStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) {
        inString = false;
        const top = frames.at(-1);
        if (top && !top.array && top.expectKey) {
          top.keyStart = stringStart;
          top.keyEnd = i + 1;
        }
      }
      continue;
    }
    switch (c) {
      case QUOTE:
        inString = true;
        stringStart = i;
        break;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (frames.length >= maxDepth) return frames.map((frame) => segment(text, frame));
        frames.push({
          array: c === OPEN_ARRAY,
          index: 0,
          keyStart: 0,
          keyEnd: 0,
          expectKey: c === OPEN_OBJECT,
        });
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        frames.pop();
        break;
      case COLON: {
        const top = frames.at(-1);
        if (top) top.expectKey = false;
        break;
      }
      case COMMA: {
        const top = frames.at(-1);
        if (top?.array) top.index++;
        else if (top) top.expectKey = true;
        break;
      }
    }
  }
  return undefined;
}

function segment(text: string, frame: Frame): string {
  if (frame.array) return String(frame.index);
  const raw = text.slice(frame.keyStart, frame.keyEnd);
  let key: string;
  try {
    key = JSON.parse(raw) as string;
  } catch {
    key = raw;
  }
  return key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN)}…` : key;
}
