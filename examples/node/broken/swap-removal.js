// BROKEN on purpose: removes each drawn Keno number by moving the last remaining number
// into its place (swap-remove) instead of shifting the rest down. Every draw is still
// uniform, so no statistic can ever see it, but the list is no longer ascending and
// almost every Keno round differs from the chain; roulette is unaffected.
'use strict';

const { makeSampler } = require('../sampler.js');

module.exports = makeSampler({
  remove: (list, i) => {
    const drawn = list[i];
    list[i] = list[list.length - 1];
    list.pop();
    return drawn;
  },
});
