// The operators' published approach to a dice round (Stake's byteGenerator and
// generateFloats, written afresh here with Node's crypto): an HMAC keyed afresh per block,
// bytes through a generator, four bytes to a float, floor(float * 10001) / 100.
// Prints the best rounds per second over REPEATS runs of ROUNDS nonces.
// Usage: node benches/stake-node.js ROUNDS REPEATS
'use strict';
const crypto = require('crypto');
const SERVER = '8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa';
const CLIENT = 'b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503';
const rounds = Number(process.argv[2] || 200000);
const repeats = Number(process.argv[3] || 5);

function* bytes(nonce) {
  for (let round = 0; ; round += 1) {
    const block = crypto.createHmac('sha256', SERVER).update(`${CLIENT}:${nonce}:${round}`).digest();
    for (const byte of block) yield byte;
  }
}

function dice(nonce) {
  const stream = bytes(nonce);
  let float = 0;
  for (let i = 0; i < 4; i += 1) float += stream.next().value / 256 ** (i + 1);
  return Math.floor(float * 10001) / 100;
}

let best = Infinity;
let sink = 0;
for (let r = 0; r < repeats; r += 1) {
  const start = process.hrtime.bigint();
  for (let nonce = 1000000; nonce < 1000000 + rounds; nonce += 1) sink += dice(nonce);
  best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
}
if (Number.isNaN(sink)) process.exit(1);
console.log(Math.round(rounds / best));
