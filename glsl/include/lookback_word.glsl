// lookback_word.glsl — the words a tile state is made of (LB_WORD), for the host's
// LOOKBACK_STATE (harness::lookback::StateWord), and the extensions they need. Include at the
// top of a shader, before any declaration (it may hold #extension directives), then declare
// `buffer { LB_WORD tile_state[]; }` and include lookback.glsl, which holds the rest.
#ifndef LOOKBACK_WORD_GLSL
#define LOOKBACK_WORD_GLSL
#define LB_TAGGED64 1     // one 64-bit word: epoch << 2 | flag above the value's 32 bits
#define LB_TWO_WORDS32 2  // two 32-bit words: (epoch << 2 | flag) << 16 | half the value's bits
#define LB_PACKED32 3     // one 32-bit word: flag << 30 | count, zeroed before every run
#if LOOKBACK_STATE == LB_TAGGED64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#define LB_WORD uint64_t
#elif LOOKBACK_STATE == LB_TWO_WORDS32 || LOOKBACK_STATE == LB_PACKED32
#define LB_WORD uint
#else
#error "define LOOKBACK_STATE 1, 2 or 3 (harness::lookback::StateWord)"
#endif
#endif
