// exactjson.js: JSON read and written without changing a number. The
// browser's JSON.parse turns every number into a double, so 1.0 comes
// back as 1 (an Int32 to the Table service, an integer to a Cosmos DB
// reader), -0.0 as 0, and an integer beyond 2^53 as its nearest double.
// A console that saved what it loaded through JSON.parse would change
// data nobody edited. Here a number stays the text the service wrote.

// RawNumber is a JSON number as written.
export class RawNumber {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

const numberRE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const stringRE = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

// isNumberText reports whether s is a JSON number, as a whole.
export function isNumberText(s) {
  numberRE.lastIndex = 0;
  return numberRE.test(s) && numberRE.lastIndex === s.length;
}

// parseExact is JSON.parse with every number a RawNumber. Objects keep
// their members' order as written.
export function parseExact(text) {
  let i = 0;
  const fail = (what) => { throw new SyntaxError(`JSON: ${what} at position ${i}`); };
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const match = (re) => {
    re.lastIndex = i;
    if (!re.test(text)) return null;
    const s = text.slice(i, re.lastIndex);
    i = re.lastIndex;
    return s;
  };
  const str = () => {
    const s = match(stringRE);
    if (s === null) fail('a bad string');
    return JSON.parse(s);
  };
  function value() {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a member name');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        // defineProperty, so that a member named __proto__ is a member.
        Object.defineProperty(o, k, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    const n = match(numberRE);
    if (n === null) fail('unexpected character');
    return new RawNumber(n);
  }
  const v = value();
  ws();
  if (i !== text.length) fail('unexpected text after the value');
  return v;
}

// stringifyExact writes v (from parseExact, or plain values) as JSON,
// indented by indent spaces (0: on one line). order, when given, sorts an
// object's keys at the top level (a stable sort, so equal keys keep their
// order).
export function stringifyExact(v, indent = 2, order) {
  const pad = (depth) => (indent ? '\n' + ' '.repeat(indent * depth) : '');
  const sep = indent ? ': ' : ':';
  function write(x, depth) {
    if (x instanceof RawNumber) return x.text;
    if (x === null || typeof x !== 'object') {
      const s = JSON.stringify(x);
      return s === undefined ? 'null' : s;
    }
    if (Array.isArray(x)) {
      if (x.length === 0) return '[]';
      return '[' + x.map((e) => pad(depth + 1) + write(e, depth + 1)).join(',') + pad(depth) + ']';
    }
    let keys = Object.keys(x).filter((k) => x[k] !== undefined);
    if (depth === 0 && order) keys = [...keys].sort(order);
    if (keys.length === 0) return '{}';
    return '{' + keys.map((k) => pad(depth + 1) + JSON.stringify(k) + sep + write(x[k], depth + 1)).join(',') + pad(depth) + '}';
  }
  return write(v, 0);
}
