#!/usr/bin/env node
// Fills a fairaudit conformance challenge with a sampler: the adapter between
// `fairaudit conformance` and the implementation under test.
//
//   node fill-challenge.js [--sampler PATH] [CHALLENGE.csv] > FILLED.csv
//
// Reads the challenge (the file, or stdin), computes every row's commitment, round
// signature, draw order, result and u32 used with the sampler (default: ./sampler.js,
// or any module exporting the same `commitment` and `play`), and writes the challenge
// with those columns filled to stdout, every other column unchanged.
// `fairaudit verify --rounds FILLED.csv` then judges it. Exit status 2 on bad input.
//
// To gate your own sampler, keep this file's CSV handling and replace `play` with a
// call into your code.
'use strict';

const fs = require('fs');
const path = require('path');

// RFC 4180: fields may be quoted; quoted fields may hold commas, line breaks and doubled
// quotes. Returns the records as arrays of strings; a final line break ends the last
// record rather than starting an empty one.
function parseCsv(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    record.push(field);
    field = '';
  };
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i += 1;
    } else if (c === '"' && field === '') {
      quoted = true;
      i += 1;
    } else if (c === ',') {
      endField();
      i += 1;
    } else if (c === '\r' || c === '\n') {
      endField();
      records.push(record);
      record = [];
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i += 1;
    }
  }
  if (quoted) throw new Error('unterminated quoted field at the end of the input');
  if (field !== '' || record.length > 0) {
    endField();
    records.push(record);
  }
  return records;
}

function csvField(text) {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(fields) {
  return `${fields.map(csvField).join(',')}\r\n`;
}

const FILLED = ['commitment', 'round_signature', 'draw_order', 'result', 'u32_used'];

function fill(text, sampler) {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('the challenge is empty');
  const column = (name) => {
    const index = header.indexOf(name);
    if (index < 0) throw new Error(`the challenge has no '${name}' column`);
    return index;
  };
  const [game, server, client, nonce] = ['game', 'server_seed', 'client_seed', 'nonce'].map(column);
  const targets = FILLED.map(column);
  let out = csvLine(header);
  rows.forEach((row, k) => {
    if (row.length !== header.length) {
      throw new Error(`row ${k + 2} has ${row.length} fields, the header ${header.length}`);
    }
    // The operator's reference holds nonces as JavaScript numbers.
    const n = Number(row[nonce]);
    if (!/^[0-9]+$/.test(row[nonce]) || !Number.isSafeInteger(n)) {
      throw new Error(`row ${k + 2}: nonce '${row[nonce]}' is not an integer in 0..2^53-1`);
    }
    const round = sampler.play(row[game], row[server], row[client], n);
    const values = [sampler.commitment(row[server]), round.signature, round.drawOrder, round.result, String(round.u32Used)];
    targets.forEach((index, j) => {
      row[index] = values[j];
    });
    out += csvLine(row);
  });
  return out;
}

function main(argv) {
  let samplerPath = path.join(__dirname, 'sampler.js');
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sampler' && i + 1 < argv.length) samplerPath = path.resolve(argv[++i]);
    else if (argv[i].startsWith('--')) throw new Error(`unknown option ${argv[i]}`);
    else files.push(argv[i]);
  }
  if (files.length > 1) throw new Error('usage: node fill-challenge.js [--sampler PATH] [CHALLENGE.csv]');
  const sampler = require(samplerPath);
  const text = fs.readFileSync(files.length ? files[0] : 0, 'utf8');
  process.stdout.write(fill(text, sampler));
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(2);
}
