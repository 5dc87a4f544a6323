/* 2:4 structured sparsity of a dot operand: XLA's SparsityDescriptor
 * (SPARSITY_STRUCTURED_N_M, n = 2, m = 4), the format of NVIDIA's sparse
 * MMA that XLA's GPU backend lowers it to.  The reference is XLA's own
 * end-to-end test, xla/service/gpu/tests/gpu_sparse_dot_test.cc, which
 * builds the compressed operand and metadata from a dense one and compares
 * the sparse dot with the dense dot.
 *
 * Along the sparse dimension the operand stores S = 2G values for G groups
 * of 4 logical elements (the dot sees 4G = 2S): stored values 2g and 2g+1
 * belong to group g, at the positions in the group that the metadata gives.
 * The metadata is u16 with the operand's shape except that the sparse
 * dimension holds ceil(S / 8) words: word w (same other indices) holds the
 * 2-bit positions of stored values 8w .. 8w+7, value s at bits 2*(s mod 8)
 * and 2*(s mod 8)+1 -- so group g's nibble is bits 4*(g mod 4) .. +3, its
 * first value's position in the low two bits.
 *
 * PTX requires the two positions of a group to increase (otherwise "the
 * behavior is undefined"); XLA checks nothing.  Here every stored value
 * still lands at its own position, and two values given the same position
 * are added (in the compute type): each contributes its own product, as the
 * hardware's index selection would. */
#ifndef HLO_KERNELS_K_SPARSE_H
#define HLO_KERNELS_K_SPARSE_H

#include "kernels/k_types.h"

/* Expands packed (sparse along dimension dim) into dense: dense->etype is
 * one of the dot compute types (F32, F64, C64, C128, S64: k_dot_compute_type),
 * dense->dims are packed's with dim doubled, dense->data is written whole.
 * meta must be u16 of the shape described above. */
bool k_sparse_expand_2_4(const KArray *packed, int dim, const KArray *meta, KArray *dense,
                         Error *err);

#endif
