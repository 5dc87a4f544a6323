/* The protobuf messages custom-call backend_configs are read as
 * (interp/custom_call/backend_json.h), one table row per field, taken from XLA's
 * xla/service/gpu/backend_configs.proto, xla/xla_data.proto and
 * xla/tsl/protobuf/dnn.proto. */
#ifndef HLO_INTERP_CUSTOM_CALL_BACKEND_SCHEMAS_H
#define HLO_INTERP_CUSTOM_CALL_BACKEND_SCHEMAS_H

#include "interp/custom_call/backend_json.h"

/* GemmBackendConfig: __cublas$gemm, __cublas$lt$matmul. */
extern const ProtoMessage SCHEMA_GEMM;
/* GpuBackendConfig wrapping it as gemm_backend_config. */
extern const ProtoMessage SCHEMA_GPU_GEMM;
/* CudnnConvBackendConfig: __cudnn$conv*. */
extern const ProtoMessage SCHEMA_CUDNN_CONV;
/* GpuBackendConfig wrapping it as cudnn_conv_backend_config. */
extern const ProtoMessage SCHEMA_GPU_CUDNN_CONV;
/* TriangularSolveOptions: __cublas$triangularSolve. */
extern const ProtoMessage SCHEMA_TRIANGULAR_SOLVE;
/* CholeskyOptions: __cusolver$cholesky. */
extern const ProtoMessage SCHEMA_CHOLESKY;
/* SortOptions: __cub$DeviceRadixSort. */
extern const ProtoMessage SCHEMA_SORT;
/* PartialReduce's options (no proto: approx_topk.cc writes the JSON). */
extern const ProtoMessage SCHEMA_PARTIAL_REDUCE;

/* GemmBackendConfig.Epilogue, stream_executor.dnn.ActivationMode,
 * TriangularSolveOptions.Transpose, PrecisionConfig.Precision. */
extern const ProtoEnum ENUM_EPILOGUE, ENUM_ACTIVATION, ENUM_TRANSPOSE, ENUM_PRECISION;

#endif
