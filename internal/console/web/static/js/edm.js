// edm.js: a Table entity's properties with their EDM types, read from the
// service's JSON and written back to it. The JSON alone does not say a
// property's type: 1.0 is a Double and 1 an Int32, an Int64 is a string
// with an "@odata.type" annotation, and so are DateTime, Guid and Binary.
// Reading through exactjson keeps each number's text, so every property
// keeps its type and value on a save unless the user changes them.
import { RawNumber, isNumberText, parseExact } from './exactjson.js';

// edmTypes are the types the Table service stores, in the order the
// editor offers them.
export const edmTypes = ['Edm.String', 'Edm.Int32', 'Edm.Int64', 'Edm.Double', 'Edm.Boolean', 'Edm.DateTime', 'Edm.Guid', 'Edm.Binary'];

// systemProps are the entity's keys and Timestamp, which are not edited
// as properties.
const systemProps = new Set(['PartitionKey', 'RowKey', 'Timestamp']);

const annotation = '@odata.type';

// isUserProp reports whether key of an entity's JSON is a property of
// its own rather than OData metadata, an annotation or a system property.
export const isUserProp = (k) => !k.startsWith('odata.') && !k.includes('@odata.') && !systemProps.has(k);

const int32 = (s) => /^-?\d+$/.test(s) && Number(s) >= -2147483648 && Number(s) <= 2147483647;
const int64 = (s) => /^-?\d+$/.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n;

// typeOf is the EDM type of value v of an entity whose annotation (if
// any) is ann, by the service's rules: an annotation says it; otherwise a
// string is a String, a boolean a Boolean, an integer that fits an Int32,
// and any other number a Double.
export function typeOf(v, ann) {
  if (ann) return ann;
  if (typeof v === 'boolean') return 'Edm.Boolean';
  if (v instanceof RawNumber) return !/[.eE]/.test(v.text) && int32(v.text) ? 'Edm.Int32' : 'Edm.Double';
  return 'Edm.String';
}

// readEntity parses an entity's JSON text (any metadata level) into its
// keys, Timestamp, ETag and properties: [{name, type, text}], text being
// the value as the editor shows it (a number exactly as sent).
export function readEntity(jsonText) {
  const ent = parseExact(jsonText);
  const props = [];
  for (const [k, v] of Object.entries(ent)) {
    if (!isUserProp(k) || v === null) continue;
    props.push({ name: k, type: typeOf(v, ent[k + annotation]), text: v instanceof RawNumber ? v.text : String(v) });
  }
  return { PartitionKey: ent.PartitionKey, RowKey: ent.RowKey, Timestamp: ent.Timestamp, etag: ent['odata.etag'], props };
}

// valueText is a property's value as display text.
export function valueText(v) {
  return v instanceof RawNumber ? v.text : String(v);
}

// writeEntity is the JSON text of an entity with keys pk, rk and props
// ([{name, type, text}]). A type whose JSON form is ambiguous (Double,
// Int64, DateTime, Guid, Binary) is annotated; a value that is not of its
// type throws, naming the property.
export function writeEntity(pk, rk, props) {
  const members = [`"PartitionKey":${JSON.stringify(pk)}`, `"RowKey":${JSON.stringify(rk)}`];
  const seen = new Set();
  for (const { name, type, text } of props) {
    if (!name) throw new Error('A property has no name.');
    if (systemProps.has(name) || seen.has(name)) throw new Error(`The property ${name} is named twice.`);
    seen.add(name);
    const bad = (what) => new Error(`${name}: ${JSON.stringify(text)} is not ${what}.`);
    const n = JSON.stringify(name);
    const typed = (value) => members.push(`${JSON.stringify(name + annotation)}:${JSON.stringify(type)}`, `${n}:${value}`);
    switch (type) {
      case 'Edm.String':
        members.push(`${n}:${JSON.stringify(text)}`);
        break;
      case 'Edm.Int32':
        if (!int32(text)) throw bad('an Int32 (a whole number from -2147483648 to 2147483647)');
        members.push(`${n}:${text}`);
        break;
      case 'Edm.Int64':
        if (!int64(text)) throw bad('an Int64 (a whole number of at most 64 bits)');
        typed(JSON.stringify(text));
        break;
      case 'Edm.Double':
        if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') typed(JSON.stringify(text));
        else if (isNumberText(text) && Number.isFinite(Number(text))) typed(text);
        else throw bad('a Double (a number such as 1.0 or 2.5e-3, or NaN, Infinity, -Infinity)');
        break;
      case 'Edm.Boolean':
        if (text !== 'true' && text !== 'false') throw bad('a Boolean (true or false)');
        members.push(`${n}:${text}`);
        break;
      case 'Edm.DateTime':
      case 'Edm.Guid':
      case 'Edm.Binary':
        typed(JSON.stringify(text));
        break;
      default:
        throw new Error(`${name}: ${type} is not an EDM type the Table service stores.`);
    }
  }
  return `{${members.join(',')}}`;
}
