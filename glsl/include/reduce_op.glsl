// reduce_op.glsl — the element type and the reduction operator, chosen by the host with
// defines: one of TYPE_F32 / TYPE_U32 / TYPE_I32 and one of OP_ADD / OP_MUL / OP_MIN / OP_MAX /
// OP_AND / OP_OR / OP_XOR. Gives: T (scalar), T4 (vector of 4), OP(a, b) (works on T and T4),
// IDENTITY (OP(IDENTITY, x) == x), SUBGROUP_OP (the subgroupXxx intrinsic), REDUCE4(v).

#if defined(TYPE_F32)
#define T float
#define T4 vec4
#define T_HIGHEST uintBitsToFloat(0x7f800000u)  // +infinity
#define T_LOWEST uintBitsToFloat(0xff800000u)   // -infinity
#elif defined(TYPE_U32)
#define T uint
#define T4 uvec4
#define T_HIGHEST 0xffffffffu
#define T_LOWEST 0u
#elif defined(TYPE_I32)
#define T int
#define T4 ivec4
#define T_HIGHEST 0x7fffffff
#define T_LOWEST (-0x7fffffff - 1)
#else
#error "define TYPE_F32, TYPE_U32 or TYPE_I32"
#endif

#if defined(OP_ADD)
#define OP(a, b) ((a) + (b))
#define SUBGROUP_OP subgroupAdd
#define IDENTITY T(0)
#elif defined(OP_MUL)
#define OP(a, b) ((a) * (b))
#define SUBGROUP_OP subgroupMul
#define IDENTITY T(1)
#elif defined(OP_MIN)
#define OP(a, b) min(a, b)
#define SUBGROUP_OP subgroupMin
#define IDENTITY T_HIGHEST
#elif defined(OP_MAX)
#define OP(a, b) max(a, b)
#define SUBGROUP_OP subgroupMax
#define IDENTITY T_LOWEST
#elif defined(OP_AND)
#define OP(a, b) ((a) & (b))
#define SUBGROUP_OP subgroupAnd
#define IDENTITY T(0xffffffffu)
#elif defined(OP_OR)
#define OP(a, b) ((a) | (b))
#define SUBGROUP_OP subgroupOr
#define IDENTITY T(0)
#elif defined(OP_XOR)
#define OP(a, b) ((a) ^ (b))
#define SUBGROUP_OP subgroupXor
#define IDENTITY T(0)
#else
#error "define OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_AND, OP_OR or OP_XOR"
#endif

#define REDUCE4(v) OP(OP((v).x, (v).y), OP((v).z, (v).w))
