// BROKEN on purpose: `word % p` without rejection sampling. It agrees with the chain on
// every round except the rare ones where a word at or above floor(2^32 / p) * p comes
// up (about 1 draw in 10^8 to 10^9), so no statistic sees it; the conformance
// challenge's rejection cases do.
'use strict';

const { makeSampler } = require('../sampler.js');

module.exports = makeSampler({ sample: (words, p) => words.next() % p });
