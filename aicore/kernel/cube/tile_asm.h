// Building blocks of the 8-row fp32 register tiles written as inline assembly, shared by the
// packed GEMM (packed_gemm_isa.cc) and the Mmad micro-kernel (mmad_isa.cc). See Note [Assembly
// tiles]. Only for the AVX-512 variants of those files.
#pragma once

// Note [Assembly tiles]
// An 8-row tile keeps C(8 rows, 16 * NJ columns), NJ = 1, 2 or 3, in registers: row r, vector v in
// zmm(NJ * r + v); the NJ vectors of B for one k step go to zmm29..31 and the broadcast A element
// to zmm28. GCC 12 compiles the same loop written with intrinsics with accumulator moves and
// 32-bit index arithmetic that take FMA ports (about 120 against 145 GFLOP/s for the packed GEMM
// on the Sapphire-Rapids-class VM this was tuned on); in assembly the tile runs at 0.92 of the FMA
// peak with its data in L1. The fma per element and the order over k are those of the intrinsic
// loops, so results stay bit-identical (Note [Mmad accumulation order]).
// A kernel describes its memory layout with macros: LDB(u, v, z) loads B's vector v of k step u
// into zmm z, BC(u, r) broadcasts A(row r, step u) into zmm28, and for C an OP(v, r, z) that loads
// or stores vector v of row r from/to zmm z. GAS evaluates displacement expressions such as
// 32*3+4*5, so u, v and r appear as plain literals. The tile's mode operand is 0 (start from
// zero), 1 (start from the bias row at %[bias], masked by %[masks]) or 2 (load C).

#define AICORE_TA_FMA(b, z) "vfmadd231ps %%zmm" #b ", %%zmm28, %%zmm" #z "\n\t"
#define AICORE_TA_ZERO(v, r, z) "vpxord %%zmm" #z ", %%zmm" #z ", %%zmm" #z "\n\t"
// Copies the bias vector v (in zmm v) to accumulator z (a self-copy for row 0).
#define AICORE_TA_COPY(v, r, z) "vmovaps %%zmm" #v ", %%zmm" #z "\n\t"

// OP(v, r, z) for every accumulator of an NJ-vector tile.
#define AICORE_TA_EACH3(OP)                                                                    \
  OP(0, 0, 0) OP(1, 0, 1) OP(2, 0, 2) OP(0, 1, 3) OP(1, 1, 4) OP(2, 1, 5) OP(0, 2, 6)          \
  OP(1, 2, 7) OP(2, 2, 8) OP(0, 3, 9) OP(1, 3, 10) OP(2, 3, 11) OP(0, 4, 12) OP(1, 4, 13)      \
  OP(2, 4, 14) OP(0, 5, 15) OP(1, 5, 16) OP(2, 5, 17) OP(0, 6, 18) OP(1, 6, 19) OP(2, 6, 20)   \
  OP(0, 7, 21) OP(1, 7, 22) OP(2, 7, 23)
#define AICORE_TA_EACH2(OP)                                                                    \
  OP(0, 0, 0) OP(1, 0, 1) OP(0, 1, 2) OP(1, 1, 3) OP(0, 2, 4) OP(1, 2, 5) OP(0, 3, 6)          \
  OP(1, 3, 7) OP(0, 4, 8) OP(1, 4, 9) OP(0, 5, 10) OP(1, 5, 11) OP(0, 6, 12) OP(1, 6, 13)      \
  OP(0, 7, 14) OP(1, 7, 15)
#define AICORE_TA_EACH1(OP)                                                                    \
  OP(0, 0, 0) OP(0, 1, 1) OP(0, 2, 2) OP(0, 3, 3) OP(0, 4, 4) OP(0, 5, 5) OP(0, 6, 6)          \
  OP(0, 7, 7)
// OP(v) for every vector of a row.
#define AICORE_TA_VEC3(OP) OP(0) OP(1) OP(2)
#define AICORE_TA_VEC2(OP) OP(0) OP(1)
#define AICORE_TA_VEC1(OP) OP(0)

// One k step u: the B vectors, then per row one broadcast and NJ FMAs.
#define AICORE_TA_STEP3(LDB, BC, u)                                                           \
  LDB(u, 0, 29) LDB(u, 1, 30) LDB(u, 2, 31)                                                   \
  BC(u, 0) AICORE_TA_FMA(29, 0) AICORE_TA_FMA(30, 1) AICORE_TA_FMA(31, 2)                     \
  BC(u, 1) AICORE_TA_FMA(29, 3) AICORE_TA_FMA(30, 4) AICORE_TA_FMA(31, 5)                     \
  BC(u, 2) AICORE_TA_FMA(29, 6) AICORE_TA_FMA(30, 7) AICORE_TA_FMA(31, 8)                     \
  BC(u, 3) AICORE_TA_FMA(29, 9) AICORE_TA_FMA(30, 10) AICORE_TA_FMA(31, 11)                   \
  BC(u, 4) AICORE_TA_FMA(29, 12) AICORE_TA_FMA(30, 13) AICORE_TA_FMA(31, 14)                  \
  BC(u, 5) AICORE_TA_FMA(29, 15) AICORE_TA_FMA(30, 16) AICORE_TA_FMA(31, 17)                  \
  BC(u, 6) AICORE_TA_FMA(29, 18) AICORE_TA_FMA(30, 19) AICORE_TA_FMA(31, 20)                  \
  BC(u, 7) AICORE_TA_FMA(29, 21) AICORE_TA_FMA(30, 22) AICORE_TA_FMA(31, 23)
#define AICORE_TA_STEP2(LDB, BC, u)                                                           \
  LDB(u, 0, 29) LDB(u, 1, 30)                                                                 \
  BC(u, 0) AICORE_TA_FMA(29, 0) AICORE_TA_FMA(30, 1)                                          \
  BC(u, 1) AICORE_TA_FMA(29, 2) AICORE_TA_FMA(30, 3)                                          \
  BC(u, 2) AICORE_TA_FMA(29, 4) AICORE_TA_FMA(30, 5)                                          \
  BC(u, 3) AICORE_TA_FMA(29, 6) AICORE_TA_FMA(30, 7)                                          \
  BC(u, 4) AICORE_TA_FMA(29, 8) AICORE_TA_FMA(30, 9)                                          \
  BC(u, 5) AICORE_TA_FMA(29, 10) AICORE_TA_FMA(30, 11)                                        \
  BC(u, 6) AICORE_TA_FMA(29, 12) AICORE_TA_FMA(30, 13)                                        \
  BC(u, 7) AICORE_TA_FMA(29, 14) AICORE_TA_FMA(30, 15)
#define AICORE_TA_STEP1(LDB, BC, u)                                                           \
  LDB(u, 0, 29)                                                                               \
  BC(u, 0) AICORE_TA_FMA(29, 0) BC(u, 1) AICORE_TA_FMA(29, 1)                                 \
  BC(u, 2) AICORE_TA_FMA(29, 2) BC(u, 3) AICORE_TA_FMA(29, 3)                                 \
  BC(u, 4) AICORE_TA_FMA(29, 4) BC(u, 5) AICORE_TA_FMA(29, 5)                                 \
  BC(u, 6) AICORE_TA_FMA(29, 6) BC(u, 7) AICORE_TA_FMA(29, 7)

// Column masks: %[masks] holds one 16-bit lane mask per vector (vector v in bits 16v..16v+15);
// AICORE_TA_LOAD_MASKS moves them to k1..k3 (consuming the operand) for AICORE_TA_MASK<v>.
#define AICORE_TA_LOAD_MASKS                                                                   \
  "kmovw %k[masks], %%k1\n\t"                                                                 \
  "shrq $16, %[masks]\n\t"                                                                    \
  "kmovw %k[masks], %%k2\n\t"                                                                 \
  "shrq $16, %[masks]\n\t"                                                                    \
  "kmovw %k[masks], %%k3\n\t"
#define AICORE_TA_MASK0 "%{%%k1%}"
#define AICORE_TA_MASK1 "%{%%k2%}"
#define AICORE_TA_MASK2 "%{%%k3%}"
// Loads the bias row's vector v (%[bias] + 64v bytes, masked) into zmm v.
#define AICORE_TA_BIAS(v) "vmovups 64*" #v "(%[bias]), %%zmm" #v AICORE_TA_MASK##v "%{z%}\n\t"

// The accumulators' start by the mode operand %[mode]: 0 zero, 1 the bias row (AICORE_TA_BIAS),
// 2 C (LDC). Uses local labels 3, 4 and 5.
#define AICORE_TA_INIT(NJ, LDC)                                                         \
  "cmpq $2, %[mode]\n\t"                                                                      \
  "je 3f\n\t"                                                                                 \
  "cmpq $1, %[mode]\n\t"                                                                      \
  "je 4f\n\t" AICORE_TA_EACH##NJ(AICORE_TA_ZERO) "jmp 5f\n\t"                                 \
  "4:\n\t" AICORE_TA_VEC##NJ(AICORE_TA_BIAS) AICORE_TA_EACH##NJ(AICORE_TA_COPY) "jmp 5f\n\t"  \
  "3:\n\t" AICORE_TA_EACH##NJ(LDC) "5:\n\t"

// The registers a tile's assembly writes besides its operands.
#define AICORE_TA_CLOBBERS                                                                     \
  "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10",     \
      "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "zmm18", "zmm19",         \
      "zmm20", "zmm21", "zmm22", "zmm23", "zmm28", "zmm29", "zmm30", "zmm31", "k1", "k2",      \
      "k3", "cc", "memory"
