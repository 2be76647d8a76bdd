// BROKEN on purpose: Keno number 17 favoured by 3% (relative), the bias of the README's
// mutant table: in 1% of rounds that did not draw 17, one drawn number is replaced by 17.
// The choice is made from the round's signature, so it is deterministic like the rest.
// The conformance challenge catches it only if one of its Keno rounds happens to be
// touched; the statistical gate catches it at 500,000 rounds.
'use strict';

const sampler = require('../sampler.js');

function keno(serverSeed, clientSeed, nonce) {
  const round = sampler.keno(serverSeed, clientSeed, nonce);
  const order = round.drawOrder.split(' ').map(Number);
  // The signature's first 32 bits as a coin, its next byte to choose the slot.
  const coin = parseInt(round.signature.slice(0, 8), 16) / 4294967296;
  if (coin < 0.01 && !order.includes(17)) {
    order[parseInt(round.signature.slice(8, 10), 16) % 10] = 17;
    round.drawOrder = order.join(' ');
    round.result = order.slice().sort((a, b) => a - b).join(' ');
  }
  return round;
}

function play(game, serverSeed, clientSeed, nonce) {
  return game === 'keno' ? keno(serverSeed, clientSeed, nonce) : sampler.play(game, serverSeed, clientSeed, nonce);
}

module.exports = { ...sampler, keno, play };
