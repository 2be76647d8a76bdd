#!/usr/bin/env node
// Plays consecutive rounds of one seed pair with a sampler and writes their outcomes as
// CSV, for fairaudit's statistical gate:
//
//   node play.js [--sampler PATH] --game G --server-seed S --client-seed C --rounds N \
//       [--first-nonce A] | fairaudit audit --game G --outcomes -
//
// Nonces A .. A+N-1 (A = 0 by default), in order. Columns `result,draw_order`: the
// outcomes alone, so `audit` judges the statistics and nothing else (add nonce and seeds
// and it would also replay every round against the chain). Fixed seeds make the verdict
// a function of the sampler's code: the same code always gets the same verdict.
'use strict';

const path = require('path');

function main(argv) {
  const options = { sampler: path.join(__dirname, 'sampler.js'), 'first-nonce': '0' };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    options[name] = argv[i + 1];
  }
  for (const name of ['game', 'server-seed', 'client-seed', 'rounds']) {
    if (options[name] === undefined) throw new Error(`--${name} is required`);
  }
  const sampler = require(path.resolve(options.sampler));
  const first = Number(options['first-nonce']);
  const rounds = Number(options.rounds);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(rounds) || !Number.isSafeInteger(first + rounds)) {
    throw new Error('--first-nonce and --rounds must be integers with a sum below 2^53');
  }
  // A closed pipe (the reader stopped) ends the run quietly.
  process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 2));
  let chunk = 'result,draw_order\n';
  for (let nonce = first; nonce < first + rounds; nonce++) {
    const round = sampler.play(options.game, options['server-seed'], options['client-seed'], nonce);
    chunk += `${round.result},${round.drawOrder}\n`;
    if (chunk.length > 1 << 16) {
      process.stdout.write(chunk);
      chunk = '';
    }
  }
  process.stdout.write(chunk);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(2);
}
