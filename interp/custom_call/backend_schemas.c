/* Backend-config schemas (interp/custom_call/backend_schemas.h).  Each row: proto
 * name, type, repeated, what the interpreter does with it, and the nested
 * message or enum.  PU_ACCEPTED rows say why they cannot change a CPU
 * result; PU_DEFAULT_ONLY rows are features not implemented. */
#include "interp/custom_call/backend_schemas.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MESSAGE(var, proto, rows) const ProtoMessage var = {proto, rows, COUNT(rows)}
#define ENUM(var, proto, names) const ProtoEnum var = {proto, names, COUNT(names)}

/* -- enums -- */

static const char *const epilogue_names[] = {"DEFAULT", "BIAS", "RELU", "BIAS_RELU",
                                             "GELU", "GELU_AUX", "BIAS_GELU", "BIAS_GELU_AUX"};
ENUM(ENUM_EPILOGUE, "Epilogue", epilogue_names);

static const char *const activation_names[] = {"kNone", "kSigmoid", "kRelu", "kRelu6",
                                               "kReluX", "kTanh", "kBandPass", "kElu",
                                               "kLeakyRelu", "kGeluExact"};
ENUM(ENUM_ACTIVATION, "ActivationMode", activation_names);

static const char *const transpose_names[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE",
                                              "ADJOINT"};
ENUM(ENUM_TRANSPOSE, "Transpose", transpose_names);

/* PACKED_NIBBLE (3) is in older XLAs' protos; the gemm refuses it. */
static const char *const precision_names[] = {"DEFAULT", "HIGH", "HIGHEST", "PACKED_NIBBLE"};
ENUM(ENUM_PRECISION, "Precision", precision_names);

static const char *const algorithm_names[] = {
    "ALG_UNSET", "ALG_DOT_ANY_F8_ANY_F8_F32", "ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM",
    "ALG_DOT_F16_F16_F16", "ALG_DOT_F16_F16_F32", "ALG_DOT_BF16_BF16_BF16",
    "ALG_DOT_BF16_BF16_F32", "ALG_DOT_BF16_BF16_F32_X3", "ALG_DOT_BF16_BF16_F32_X6",
    "ALG_DOT_TF32_TF32_F32", "ALG_DOT_TF32_TF32_F32_X3", "ALG_DOT_F32_F32_F32",
    "ALG_DOT_F64_F64_F64", "ALG_DOT_BF16_BF16_F32_X9"};
static ENUM(ENUM_ALGORITHM, "Algorithm", algorithm_names);

static const char *const math_type_names[] = {"DEFAULT_MATH", "TENSOR_OP_MATH"};
static ENUM(ENUM_MATH_TYPE, "MathType", math_type_names);

/* -- xla_data.proto -- */

static const ProtoField dot_dims_rows[] = {
    {"lhs_contracting_dimensions", PT_INT64, true, PU_HONOURED, 0, 0},
    {"rhs_contracting_dimensions", PT_INT64, true, PU_HONOURED, 0, 0},
    {"lhs_batch_dimensions", PT_INT64, true, PU_HONOURED, 0, 0},
    {"rhs_batch_dimensions", PT_INT64, true, PU_HONOURED, 0, 0},
};
static MESSAGE(SCHEMA_DOT_DIMS, "DotDimensionNumbers", dot_dims_rows);

static const ProtoField precision_rows[] = {
    /* Read by the gemm (PACKED_NIBBLE refused); DEFAULT/HIGH/HIGHEST only
     * pick GPU speed, the CPU computes in the full compute type. */
    {"operand_precision", PT_ENUM, true, PU_HONOURED, 0, &ENUM_PRECISION},
    /* As the interpreter's dot: an algorithm is a precision request, and
     * the CPU computes every product in the dot's compute type. */
    {"algorithm", PT_ENUM, false, PU_ACCEPTED, 0, &ENUM_ALGORITHM},
};
static MESSAGE(SCHEMA_PRECISION, "PrecisionConfig", precision_rows);

static const ProtoField trsm_rows[] = {
    {"left_side", PT_BOOL, false, PU_HONOURED, 0, 0},
    {"lower", PT_BOOL, false, PU_HONOURED, 0, 0},
    {"unit_diagonal", PT_BOOL, false, PU_HONOURED, 0, 0},
    {"transpose_a", PT_ENUM, false, PU_HONOURED, 0, &ENUM_TRANSPOSE},
};
MESSAGE(SCHEMA_TRIANGULAR_SOLVE, "TriangularSolveOptions", trsm_rows);

static const ProtoField cholesky_rows[] = {
    {"lower", PT_BOOL, false, PU_HONOURED, 0, 0},
};
MESSAGE(SCHEMA_CHOLESKY, "CholeskyOptions", cholesky_rows);

static const ProtoField sort_rows[] = {
    {"descending", PT_BOOL, false, PU_HONOURED, 0, 0},
};
MESSAGE(SCHEMA_SORT, "SortOptions", sort_rows);

/* -- backend_configs.proto -- */

static const ProtoField gemm_rows[] = {
    /* the cuBLAS algorithm autotuning picked: speed only */
    {"selected_algorithm", PT_INT64, false, PU_ACCEPTED, 0, 0},
    {"alpha_real", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    {"alpha_imag", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    {"beta", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    {"dot_dimension_numbers", PT_MESSAGE, false, PU_HONOURED, &SCHEMA_DOT_DIMS, 0},
    {"precision_config", PT_MESSAGE, false, PU_HONOURED, &SCHEMA_PRECISION, 0},
    {"epilogue", PT_ENUM, false, PU_HONOURED, 0, &ENUM_EPILOGUE},
    /* batch strides of the operands in GPU memory; the interpreter reads
     * logical arrays, whose batch dimensions the dimension numbers name */
    {"lhs_stride", PT_INT64, false, PU_ACCEPTED, 0, 0},
    {"rhs_stride", PT_INT64, false, PU_ACCEPTED, 0, 0},
    /* which operand is a gradient: steers algorithm choice, not math */
    {"grad_x", PT_BOOL, false, PU_ACCEPTED, 0, 0},
    {"grad_y", PT_BOOL, false, PU_ACCEPTED, 0, 0},
    /* an extra amax result and fp8 scaling: not implemented */
    {"damax_output", PT_BOOL, false, PU_DEFAULT_ONLY, 0, 0},
    {"is_fp8", PT_BOOL, false, PU_DEFAULT_ONLY, 0, 0},
    /* older XLAs (the alpa dumps): the batch size the shapes already give */
    {"batch_size", PT_INT64, false, PU_ACCEPTED, 0, 0},
};
MESSAGE(SCHEMA_GEMM, "GemmBackendConfig", gemm_rows);

static const ProtoField algorithm_rows[] = {
    /* cuDNN's algorithm and its knobs, chosen by autotuning: speed only */
    {"algo_id", PT_INT64, false, PU_ACCEPTED, 0, 0},
    {"math_type", PT_ENUM, false, PU_ACCEPTED, 0, &ENUM_MATH_TYPE},
    {"tuning_knobs", PT_ANY, false, PU_ACCEPTED, 0, 0}, /* map<int64, int64> */
    {"is_cudnn_frontend", PT_BOOL, false, PU_ACCEPTED, 0, 0},
    {"workspace_size", PT_INT64, false, PU_ACCEPTED, 0, 0}, /* UInt64Value: a bare number */
    {"is_bf16_fallback", PT_BOOL, false, PU_ACCEPTED, 0, 0},
};
static MESSAGE(SCHEMA_ALGORITHM, "AlgorithmProto", algorithm_rows);

static const ProtoField conv_rows[] = {
    {"algorithm", PT_MESSAGE, false, PU_ACCEPTED, &SCHEMA_ALGORITHM, 0},
    {"conv_result_scale", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    {"activation_mode", PT_ENUM, false, PU_HONOURED, 0, &ENUM_ACTIVATION},
    {"side_input_scale", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    {"leakyrelu_alpha", PT_DOUBLE, false, PU_HONOURED, 0, 0},
    /* reordered int8x32 filters and cuDNN graph convolutions: not
     * implemented */
    {"reordered_int8_nchw_vect", PT_BOOL, false, PU_DEFAULT_ONLY, 0, 0},
    {"serialized_graph", PT_STRING, false, PU_DEFAULT_ONLY, 0, 0},
};
MESSAGE(SCHEMA_CUDNN_CONV, "CudnnConvBackendConfig", conv_rows);

static const ProtoField reification_rows[] = {
    {"end_to_end_cycles", PT_DOUBLE, false, PU_ACCEPTED, 0, 0},
    {"exec_time_us", PT_DOUBLE, false, PU_ACCEPTED, 0, 0},
    {"compute_time_us", PT_DOUBLE, false, PU_ACCEPTED, 0, 0},
    {"memory_access_time_us", PT_DOUBLE, false, PU_ACCEPTED, 0, 0},
    {"name", PT_STRING, false, PU_ACCEPTED, 0, 0},
};
static MESSAGE(SCHEMA_REIFICATION, "ReificationCost", reification_rows);

/* GpuBackendConfig's fields besides its oneof backend_config: stream
 * assignment, scheduling and cost estimates, none of which changes a
 * result.  The oneof's other members (fusion, collective, ... configs)
 * belong to other instructions: refused unless empty. */
#define GPU_COMMON_ROWS                                                        \
  {"operation_queue_id", PT_INT64, false, PU_ACCEPTED, 0, 0},                  \
  {"wait_on_operation_queues", PT_INT64, true, PU_ACCEPTED, 0, 0},             \
  {"force_earliest_schedule", PT_BOOL, false, PU_ACCEPTED, 0, 0},              \
  {"reification_cost", PT_MESSAGE, true, PU_ACCEPTED, &SCHEMA_REIFICATION, 0}, \
  {"bitcast_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},        \
  {"collective_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},     \
  {"fusion_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},         \
  {"cudnn_norm_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},     \
  {"cudnn_fmha_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},     \
  {"custom_call_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0}

static const ProtoField gpu_gemm_rows[] = {
    {"gemm_backend_config", PT_MESSAGE, false, PU_HONOURED, &SCHEMA_GEMM, 0},
    {"cudnn_conv_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},
    GPU_COMMON_ROWS,
};
MESSAGE(SCHEMA_GPU_GEMM, "GpuBackendConfig", gpu_gemm_rows);

static const ProtoField gpu_conv_rows[] = {
    {"cudnn_conv_backend_config", PT_MESSAGE, false, PU_HONOURED, &SCHEMA_CUDNN_CONV, 0},
    {"gemm_backend_config", PT_MESSAGE, false, PU_DEFAULT_ONLY, 0, 0},
    GPU_COMMON_ROWS,
};
MESSAGE(SCHEMA_GPU_CUDNN_CONV, "GpuBackendConfig", gpu_conv_rows);

/* -- PartialReduce (xla/hlo/builder/lib/approx_topk.cc) -- */

static const ProtoField partial_reduce_rows[] = {
    {"log2_reduction", PT_INT64, false, PU_HONOURED, 0, 0},
    {"reduction_dim", PT_INT64, false, PU_HONOURED, 0, 0},
    {"to_apply_type", PT_STRING, false, PU_HONOURED, 0, 0},
    /* informative: the result shape already says how far the reduction
     * dimension is cut (interp/custom_call/partial_reduce.c) */
    {"top_k", PT_INT64, false, PU_ACCEPTED, 0, 0},
    {"recall_target", PT_DOUBLE, false, PU_ACCEPTED, 0, 0},
};
MESSAGE(SCHEMA_PARTIAL_REDUCE, "PartialReduce options", partial_reduce_rows);
