// rms_norm.cc: an XLA FFI handler as a JAX user writes one for
// jax.ffi.ffi_call, built against hlotools' header (with XLA, the include
// is "xla/ffi/api/ffi.h"; nothing else changes).
#include <cmath>
#include <cstdint>

#include "hlotools/ffi/ffi.h"

namespace ffi = xla::ffi;

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w, over the rows r of
// x's last dimension.
static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> w,
                              ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("rms_norm: x must be at least 1-D");
  const int64_t n = dims.back();
  if (static_cast<int64_t>(w.element_count()) != n)
    return ffi::Error::InvalidArgument("rms_norm: w must have x's last dimension");
  const int64_t rows = n ? static_cast<int64_t>(x.element_count()) / n : 0;
  const float *xd = x.typed_data();
  const float *wd = w.typed_data();
  float *yd = y->typed_data();
  for (int64_t r = 0; r < rows; r++) {
    float sum = 0;
    for (int64_t i = 0; i < n; i++) sum += xd[r * n + i] * xd[r * n + i];
    const float scale = 1.0f / std::sqrt(sum / static_cast<float>(n) + eps);
    for (int64_t i = 0; i < n; i++) yd[r * n + i] = xd[r * n + i] * scale * wd[i];
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()  // x
                                  .Arg<ffi::Buffer<ffi::F32>>()  // w
                                  .Ret<ffi::Buffer<ffi::F32>>()  // y
);
