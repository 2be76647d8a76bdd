// A provably-fair sampler for Keno 10-of-40 and European/American roulette, written from
// the operator's published procedure (SPEC.md §1-5) with Node's built-in crypto only, so
// it needs no npm install. It stands for "the operator's sampler" in fairaudit's
// conformance kit: examples/node/fill-challenge.js fills a conformance challenge with it,
// examples/node/play.js plays rounds for the statistical gate.
//
// makeSampler(options) builds the sampler from its two choices that matter for
// fairness, so the deliberately broken variants in broken/ differ from this file in
// exactly one line each:
//   sample(words, p)  a fair index in 0..p-1 from the word stream (rejection sampling)
//   remove(list, i)   take element i out of the not-yet-drawn Keno numbers, keeping order
'use strict';

const crypto = require('crypto');

// SHA3-256 of the UTF-8 bytes of `text`, as lowercase hex (SPEC §1).
function sha3Hex(text) {
  return crypto.createHash('sha3-256').update(text, 'utf8').digest('hex');
}

// The commitment shown before play: SHA3-256 of the server seed.
function commitment(serverSeed) {
  return sha3Hex(serverSeed);
}

// The round signature: SHA3-256 of "S:C:n", n in plain decimal (SPEC §1). The nonce is a
// JavaScript number, as in the operator's reference; it must be a safe integer.
function roundSignature(serverSeed, clientSeed, nonce) {
  if (!Number.isSafeInteger(nonce) || nonce < 0) {
    throw new RangeError(`nonce ${nonce} is not an integer in 0..2^53-1`);
  }
  return sha3Hex(`${serverSeed}:${clientSeed}:${nonce}`);
}

// The round's words: SHAKE256 of the signature's 64 hex characters, read as big-endian
// u32 (SPEC §2). Output of an extendable-output function is prefix-stable, so when a
// round needs more words than were squeezed, squeezing twice as many continues the
// same stream.
class Words {
  constructor(signature) {
    this.signature = signature;
    this.used = 0;
    this.squeeze(16);
  }

  squeeze(count) {
    const bytes = crypto
      .createHash('shake256', { outputLength: 4 * count })
      .update(this.signature, 'utf8')
      .digest();
    this.buffer = bytes;
  }

  next() {
    if (4 * this.used === this.buffer.length) this.squeeze(2 * this.used);
    const word = this.buffer.readUInt32BE(4 * this.used);
    this.used += 1;
    return word;
  }
}

const TWO_TO_32 = 4294967296;

// Rejection sampling (SPEC §3): words at or above floor(2^32 / p) * p are discarded.
// 2^32 is exact in a JavaScript number (a double), so the limit is too.
function rejectionSample(words, p) {
  const limit = Math.floor(TWO_TO_32 / p) * p;
  for (;;) {
    const word = words.next();
    if (word < limit) return word % p;
  }
}

// Removal that keeps the remaining numbers ascending (SPEC §4).
function shiftRemove(list, i) {
  return list.splice(i, 1)[0];
}

function makeSampler({ sample = rejectionSample, remove = shiftRemove } = {}) {
  // Keno (SPEC §4): ten draws without repetition from the ascending list of the
  // numbers not yet drawn, P = 40, 39, ..., 31.
  function keno(serverSeed, clientSeed, nonce) {
    const signature = roundSignature(serverSeed, clientSeed, nonce);
    const words = new Words(signature);
    const remaining = Array.from({ length: 40 }, (_, k) => k + 1);
    const drawOrder = [];
    for (let draw = 0; draw < 10; draw++) {
      drawOrder.push(remove(remaining, sample(words, remaining.length)));
    }
    const result = drawOrder.slice().sort((a, b) => a - b);
    return {
      signature,
      drawOrder: drawOrder.join(' '),
      result: result.join(' '),
      u32Used: words.used,
    };
  }

  // Roulette (SPEC §5): one draw among 37 (European) or 38 (American) pockets; American
  // pocket 37 is shown as "00".
  function roulette(wheel, serverSeed, clientSeed, nonce) {
    const pockets = { european: 37, american: 38 }[wheel];
    if (pockets === undefined) throw new RangeError(`unknown wheel '${wheel}'`);
    const signature = roundSignature(serverSeed, clientSeed, nonce);
    const words = new Words(signature);
    const pocket = sample(words, pockets);
    return {
      signature,
      drawOrder: String(pocket),
      result: pocket === 37 ? '00' : String(pocket),
      u32Used: words.used,
    };
  }

  // One round of a game named as in fairaudit's files.
  function play(game, serverSeed, clientSeed, nonce) {
    switch (game) {
      case 'keno':
        return keno(serverSeed, clientSeed, nonce);
      case 'roulette-european':
        return roulette('european', serverSeed, clientSeed, nonce);
      case 'roulette-american':
        return roulette('american', serverSeed, clientSeed, nonce);
      default:
        throw new RangeError(`unknown game '${game}'`);
    }
  }

  return { commitment, roundSignature, keno, roulette, play };
}

module.exports = { makeSampler, Words, rejectionSample, shiftRemove, ...makeSampler() };
