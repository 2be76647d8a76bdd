#!/usr/bin/env node
// A Node.js verifier written the way the operator's published verifier works (SPEC.md):
// js-sha3 for SHA3-256 and SHAKE256, and a fixed-length SHAKE256 digest per round
// (80 u32 for Keno, 2 for Roulette) that the sampler reads integers from.
//
// It exists for two reasons: to show that js-sha3 reproduces the vectors (so the speed
// comparison below compares like with like), and to measure how fast that approach is.
//
//   node verifier.js check FILE
//       Reproduce every row of a vectors CSV; exit 1 on any mismatch, 2 on bad input.
//   node verifier.js bench GAME SERVER CLIENT START COUNT
//       Play COUNT rounds from nonce START on one thread and print rounds/s.
'use strict';

const fs = require('fs');
const path = require('path');

// run.sh installs js-sha3 into a private prefix beside this file so that nothing is added
// to the repository's root; fall back to normal resolution for anyone who installed it
// some other way.
function loadJsSha3() {
  const privatePrefix = path.join(__dirname, '.js-deps');
  try {
    return require(require.resolve('js-sha3', { paths: [privatePrefix, __dirname] }));
  } catch (err) {
    process.stderr.write(
      'js-sha3 is not installed: run benches/compare/run.sh, or\n' +
        `  npm install --no-audit --no-fund --prefix ${privatePrefix} js-sha3\n`,
    );
    process.exit(2);
  }
}
const { sha3_256, shake256 } = loadJsSha3();

const GAMES = {
  keno: { words: 80 },
  'roulette-european': { words: 2, pockets: 37 },
  'roulette-american': { words: 2, pockets: 38 },
};

// A reader over a fixed-length SHAKE256 digest of the signature, as the published
// verifier does. If rejection sampling ever exhausts it, recompute a digest twice as
// long: XOF output is prefix-stable, so the words already read stay the same and the
// stream simply continues. The round records how many words it took in `used`.
class WordReader {
  constructor(signature, words) {
    this.signature = signature;
    this.words = words;
    this.view = new DataView(shake256.arrayBuffer(signature, words * 32));
    this.used = 0;
  }

  next() {
    if (this.used === this.words) {
      this.words *= 2;
      this.view = new DataView(shake256.arrayBuffer(this.signature, this.words * 32));
    }
    // The stream is big-endian u32; DataView reads it that way regardless of the host.
    const value = this.view.getUint32(this.used * 4, false);
    this.used += 1;
    return value;
  }

  // Rejection sampling. 2^32 does not fit a u32; JS numbers are exact doubles up to
  // 2^53, so the limit is computed exactly here.
  sample(p) {
    const limit = Math.floor(4294967296 / p) * p;
    let r = this.next();
    while (r >= limit) r = this.next();
    return r % p;
  }
}

function roundSignature(server, client, nonce) {
  // js-sha3 UTF-8-encodes JS strings itself (surrogate pairs included).
  return sha3_256(`${server}:${client}:${nonce}`);
}

// Returns { drawOrder: number[], result: string, used: number } for one round.
function playRound(game, signature) {
  const spec = GAMES[game];
  const reader = new WordReader(signature, spec.words);
  if (game === 'keno') {
    const remaining = [];
    for (let n = 1; n <= 40; n++) remaining.push(n);
    const drawOrder = [];
    for (let draw = 0; draw < 10; draw++) {
      const i = reader.sample(remaining.length);
      drawOrder.push(remaining.splice(i, 1)[0]);
    }
    const sorted = drawOrder.slice().sort((a, b) => a - b);
    return { drawOrder, result: sorted.join(' '), used: reader.used };
  }
  const pocket = reader.sample(spec.pockets);
  return { drawOrder: [pocket], result: pocket === 37 ? '00' : String(pocket), used: reader.used };
}

// RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. Returns an
// array of records, each [lineNumber, fields]; lineNumber is the line the record starts on.
// Blank lines are skipped, so a file that ends in a line break has no phantom last record.
function parseCsv(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records = [];
  let fields = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let atFieldStart = true; // only an opening quote here starts a quoted field
  let inRecord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
      inRecord = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
      inRecord = true;
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (inRecord) {
        fields.push(field);
        records.push([recordLine, fields]);
      }
      fields = [];
      field = '';
      atFieldStart = true;
      inRecord = false;
      line++;
      recordLine = line;
    } else {
      field += c;
      atFieldStart = false;
      inRecord = true;
    }
  }
  if (quoted) throw new Error(`line ${recordLine}: unterminated quoted field`);
  if (inRecord) {
    fields.push(field);
    records.push([recordLine, fields]);
  }
  return records;
}

const COLUMNS = [
  'game', 'server_seed', 'client_seed', 'nonce', 'commitment',
  'round_signature', 'draw_order', 'result', 'u32_used',
];

function check(file) {
  const records = parseCsv(fs.readFileSync(file, 'utf8'));
  if (records.length === 0 || records[0][1].join(',') !== COLUMNS.join(',')) {
    throw new Error(`${file}: header must be ${COLUMNS.join(',')}`);
  }
  let rows = 0;
  let mismatches = 0;
  for (const [line, fields] of records.slice(1)) {
    if (fields.length !== COLUMNS.length) {
      throw new Error(`${file} line ${line}: ${fields.length} fields, expected ${COLUMNS.length}`);
    }
    const row = Object.fromEntries(COLUMNS.map((name, k) => [name, fields[k]]));
    if (!(row.game in GAMES)) throw new Error(`${file} line ${line}: unknown game '${row.game}'`);
    // The reference holds nonces as JS numbers; a nonce that does not survive the round
    // trip (leading zeros, beyond 2^53 - 1) has no reference behaviour to compare with.
    const nonce = Number(row.nonce);
    if (!/^[0-9]+$/.test(row.nonce) || !Number.isSafeInteger(nonce) || String(nonce) !== row.nonce) {
      throw new Error(`${file} line ${line}: nonce '${row.nonce}' is not a plain decimal up to 2^53 - 1`);
    }
    const signature = roundSignature(row.server_seed, row.client_seed, nonce);
    const round = playRound(row.game, signature);
    const computed = {
      commitment: sha3_256(row.server_seed),
      round_signature: signature,
      draw_order: round.drawOrder.join(' '),
      result: round.result,
      u32_used: String(round.used),
    };
    rows++;
    for (const [name, value] of Object.entries(computed)) {
      if (row[name] !== value) {
        mismatches++;
        console.log(`line ${line}: ${name}: file has '${row[name]}', computed '${value}'`);
      }
    }
  }
  console.log(`node js-sha3: ${file}: ${rows} rounds checked, ${mismatches} mismatches`);
  return mismatches === 0;
}

function bench(game, server, client, start, count) {
  if (!(game in GAMES)) throw new Error(`unknown game '${game}'`);
  // Tally outcomes so the work cannot be skipped and so two implementations' runs over
  // the same nonces can be compared by eye.
  const tally = new Array(41).fill(0);
  let extraWords = 0;
  const minimumWords = game === 'keno' ? 10 : 1;
  const t0 = process.hrtime.bigint();
  for (let nonce = start; nonce < start + count; nonce++) {
    const round = playRound(game, roundSignature(server, client, nonce));
    for (const n of round.drawOrder) tally[n]++;
    extraWords += round.used - minimumWords;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const checksum = tally.reduce((acc, n, k) => (acc * 31 + n * (k + 1)) % 1000000007, 0);
  console.log(
    `impl=node-js-sha3 game=${game} rounds=${count} seconds=${seconds.toFixed(3)} ` +
      `rounds_per_s=${Math.round(count / seconds)} rejected_words=${extraWords} tally_checksum=${checksum}`,
  );
}

function usage() {
  process.stderr.write(
    'usage: node verifier.js check FILE\n' +
      '       node verifier.js bench GAME SERVER CLIENT START COUNT\n',
  );
  process.exit(2);
}

function parseCount(text, what) {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new Error(`${what} must be a plain decimal integer up to 2^53 - 1, got '${text}'`);
  }
  return value;
}

function main(argv) {
  try {
    if (argv[0] === 'check' && argv.length === 2) {
      process.exit(check(argv[1]) ? 0 : 1);
    } else if (argv[0] === 'bench' && argv.length === 6) {
      const start = parseCount(argv[4], 'START');
      const count = parseCount(argv[5], 'COUNT');
      if (!Number.isSafeInteger(start + count)) throw new Error('START + COUNT exceeds 2^53 - 1');
      bench(argv[1], argv[2], argv[3], start, count);
    } else {
      usage();
    }
  } catch (err) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
}

main(process.argv.slice(2));
