// flag_word.glsl — one 64-bit atomic word holding a flag (high half) and a value of the element
// type T (low half), so a reader never sees the flag without its value: 02's flagged partials
// and 03's tile states. Include after T is defined. Gives TO_BITS(x) / FROM_BITS(b) (T <-> the
// low half) and SPIN_LIMIT.
#ifndef FLAG_WORD_GLSL
#define FLAG_WORD_GLSL
#if defined(TYPE_F32)
#define TO_BITS(x) floatBitsToUint(x)
#define FROM_BITS(b) uintBitsToFloat(b)
#else
#define TO_BITS(x) uint(x)
#define FROM_BITS(b) T(b)
#endif

// Polls of a flag before giving up: a writer that has started needs microseconds, so 16384
// polls (milliseconds) mean it is not running. Below lavapipe's own budget: llvmpipe gives an
// invocation 65535 loop iterations in all, shared by its loops; once spent, every loop exits at
// its next check as if its condition were false, silently.
const uint SPIN_LIMIT = 1u << 14;
#endif
