// BROKEN on purpose: European pockets 17 and 31 swapped, as a typo in a lookup table
// would swap them. Every pocket still comes up exactly 1 time in 37, so no statistic can
// see it; the conformance challenge does, because every pocket of each wheel appears in
// at least one of its cases (here "European pocket 17" and "European pocket 31").
'use strict';

const sampler = require('../sampler.js');

const SWAPPED = { 17: 31, 31: 17 };

function roulette(wheel, serverSeed, clientSeed, nonce) {
  const spin = sampler.roulette(wheel, serverSeed, clientSeed, nonce);
  const pocket = Number(spin.drawOrder);
  if (wheel === 'european' && pocket in SWAPPED) {
    spin.drawOrder = String(SWAPPED[pocket]);
    spin.result = String(SWAPPED[pocket]);
  }
  return spin;
}

function play(game, serverSeed, clientSeed, nonce) {
  return game === 'roulette-european'
    ? roulette('european', serverSeed, clientSeed, nonce)
    : sampler.play(game, serverSeed, clientSeed, nonce);
}

module.exports = { ...sampler, roulette, play };
