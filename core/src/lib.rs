//! hexveil-core: the rules engine. Pure and deterministic: no IO, no clock,
//! no randomness of its own, no crypto. Dice come in as values.
