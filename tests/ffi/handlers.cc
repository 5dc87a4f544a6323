// Test handlers for hlorun's typed-FFI custom calls, written as a JAX user
// writes them (XLA's ffi.h API) against hlotools' header.  Built as the
// module lib/libhlo_test_ffi.so (cmake/ffi_tests.cmake); only the
// XLA_FFI_DEFINE_HANDLER_SYMBOL functions are exported.  Each handler's
// comment gives the custom call it expects and what it computes, so a
// golden case can derive its expected output by hand.
#include <cstdint>
#include <string_view>

#include "hlotools/ffi/ffi.h"

namespace ffi = xla::ffi;

namespace {

// hlo_test_axpy(x: f32[...], y: f32[...]) -> f32[...] = y + alpha * x,
// elementwise, any rank; backend_config={alpha = <f> : f32}.
ffi::Error Axpy(float alpha, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                ffi::ResultBuffer<ffi::F32> out) {
  if (x.dimensions().size() != y.dimensions().size() || x.element_count() != y.element_count() ||
      out->element_count() != x.element_count())
    return ffi::Error::InvalidArgument("hlo_test_axpy: x, y and the result differ in shape");
  const float* xs = x.typed_data();
  const float* ys = y.typed_data();
  float* o = out->typed_data();
  for (size_t i = 0; i < x.element_count(); ++i) o[i] = ys[i] + alpha * xs[i];
  return ffi::Error::Success();
}

// The weighted sum sum_k (k+1)*v[k] of an array: order matters, so a
// reversed or truncated array gives another number.
template <typename T>
double WeightedSum(ffi::Span<const T> v) {
  double s = 0;
  for (size_t k = 0; k < v.size(); ++k) s += static_cast<double>(k + 1) * static_cast<double>(v[k]);
  return s;
}

// hlo_test_attrs() -> f64[15], one element per attribute (pick values that
// f64 holds exactly):
//   [0] a_i8 (i8)   [1] b_i16 (i16)  [2] c_i32 (i32)  [3] d_i64 (i64)
//   [4] e_u8 (ui8)  [5] f_u16 (ui16) [6] g_u32 (ui32) [7] h_u64 (ui64)
//   [8] i_f32 (f32) [9] j_f64 (f64)  [10] k_bool: 1 for true, 0 for false
//   [11] l_str (string): 1000 * length + sum of its bytes (unsigned)
//   [12] m_arr_i64 (array<i64>): sum_k (k+1) * m[k]
//   [13] n_arr_f32 (array<f32>): sum_k (k+1) * n[k]
//   [14] o_dict (dictionary {p = <i32>, q = "<string>"}): 100 * p + length(q)
// e.g. backend_config={a_i8 = -3 : i8, b_i16 = 300 : i16, c_i32 = -70000 : i32,
//   d_i64 = 5000000000 : i64, e_u8 = 250 : ui8, f_u16 = 65000 : ui16,
//   g_u32 = 4000000000 : ui32, h_u64 = 9000000000 : ui64, i_f32 = 2.5 : f32,
//   j_f64 = -0.125 : f64, k_bool = true, l_str = "ab",
//   m_arr_i64 = array<i64: 4, 5, 6>, n_arr_f32 = array<f32: 0.5, -1.0>,
//   o_dict = {p = 7 : i32, q = "xyz"}}
ffi::Error Attrs(int8_t a, int16_t b, int32_t c, int64_t d, uint8_t e, uint16_t f, uint32_t g,
                 uint64_t h, float i, double j, bool k, std::string_view l,
                 ffi::Span<const int64_t> m, ffi::Span<const float> n, ffi::Dictionary o,
                 ffi::ResultBuffer<ffi::F64, 1> out) {
  if (out->element_count() != 15)
    return ffi::Error::InvalidArgument("hlo_test_attrs: the result must be f64[15]");
  ffi::ErrorOr<int32_t> p = o.get<int32_t>("p");
  if (p.has_error()) return p.error();
  ffi::ErrorOr<std::string_view> q = o.get<std::string_view>("q");
  if (q.has_error()) return q.error();
  double str_code = 1000.0 * static_cast<double>(l.size());
  for (char ch : l) str_code += static_cast<double>(static_cast<unsigned char>(ch));
  double* r = out->typed_data();
  r[0] = a;
  r[1] = b;
  r[2] = c;
  r[3] = static_cast<double>(d);
  r[4] = e;
  r[5] = f;
  r[6] = g;
  r[7] = static_cast<double>(h);
  r[8] = static_cast<double>(i);
  r[9] = j;
  r[10] = k ? 1.0 : 0.0;
  r[11] = str_code;
  r[12] = WeightedSum(m);
  r[13] = WeightedSum(n);
  r[14] = 100.0 * *p + static_cast<double>(q->size());
  return ffi::Error::Success();
}

// hlo_test_any_sum(x: f32|f64|s32[...]) -> f64[] = the sum of x's elements
// in index order (in f64); other element types fail with UNIMPLEMENTED.
template <typename T>
double Sum(const ffi::AnyBuffer& x) {
  const T* v = x.typed_data<T>();
  double s = 0;
  for (size_t i = 0; i < x.element_count(); ++i) s += static_cast<double>(v[i]);
  return s;
}

ffi::Error AnySum(ffi::AnyBuffer x, ffi::ResultBufferR0<ffi::F64> out) {
  double s;
  switch (x.element_type()) {
    case ffi::F32:
      s = Sum<float>(x);
      break;
    case ffi::F64:
      s = Sum<double>(x);
      break;
    case ffi::S32:
      s = Sum<int32_t>(x);
      break;
    default:
      return ffi::Error(ffi::ErrorCode::kUnimplemented,
                        "hlo_test_any_sum: element type must be f32, f64 or s32");
  }
  *out->typed_data() = s;
  return ffi::Error::Success();
}

// hlo_test_fail(x: f32[...]) -> f32[...]: with backend_config={fail = true}
// fails with INVALID_ARGUMENT "hlo_test_fail: failing as asked"; with
// {fail = false} copies x.
ffi::Error Fail(bool fail, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> out) {
  if (fail) return ffi::Error(ffi::ErrorCode::kInvalidArgument, "hlo_test_fail: failing as asked");
  if (out->element_count() != x.element_count())
    return ffi::Error::InvalidArgument("hlo_test_fail: the result must have x's shape");
  for (size_t i = 0; i < x.element_count(); ++i) out->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}

// hlo_test_two_results(x: f32[...]) -> (f32[...] = x * 2, f32[...] = x + 1),
// a tuple-result custom call; no attributes.
ffi::Error TwoResults(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> twice,
                      ffi::ResultBuffer<ffi::F32> plus_one) {
  if (twice->element_count() != x.element_count() || plus_one->element_count() != x.element_count())
    return ffi::Error::InvalidArgument("hlo_test_two_results: results must have x's shape");
  for (size_t i = 0; i < x.element_count(); ++i) {
    twice->typed_data()[i] = x.typed_data()[i] * 2.0f;
    plus_one->typed_data()[i] = x.typed_data()[i] + 1.0f;
  }
  return ffi::Error::Success();
}

// hlo_test_dict_struct(x: f32[n]) -> f32[n]: all attributes decoded into a
// struct, backend_config={hi = <i64>, lo = <i64>, scale = <f> : f32}
// (exactly these three): out[i] = x[i] * scale for lo <= i < hi, else x[i].
struct Window {
  int64_t lo;
  int64_t hi;
  float scale;
};

ffi::Error DictStruct(Window w, ffi::BufferR1<ffi::F32> x, ffi::ResultBufferR1<ffi::F32> out) {
  if (out->element_count() != x.element_count())
    return ffi::Error::InvalidArgument("hlo_test_dict_struct: the result must have x's shape");
  for (size_t i = 0; i < x.element_count(); ++i) {
    int64_t at = static_cast<int64_t>(i);
    float v = x.typed_data()[i];
    out->typed_data()[i] = (w.lo <= at && at < w.hi) ? v * w.scale : v;
  }
  return ffi::Error::Success();
}

// hlo_test_combine(x0: f32[n], x1: f32[n], ...) -> f32[n]: RemainingArgs,
// an enum attribute and the execution context's thread pool.
// backend_config={mode = <m> : i32}: m = 0 sums the operands elementwise,
// m = 1 takes their elementwise maximum; other m fail with INVALID_ARGUMENT.
enum class Combine : int32_t { kSum = 0, kMax = 1 };

}  // namespace

XLA_FFI_REGISTER_ENUM_ATTR_DECODING(Combine);
XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(Window, ffi::StructMember<int64_t>("lo"),
                                      ffi::StructMember<int64_t>("hi"),
                                      ffi::StructMember<float>("scale"));

namespace {

ffi::Error CombineAll(ffi::ThreadPool pool, Combine mode, ffi::RemainingArgs xs,
                      ffi::ResultBuffer<ffi::F32> out) {
  if (mode != Combine::kSum && mode != Combine::kMax)
    return ffi::Error::InvalidArgument("hlo_test_combine: mode must be 0 (sum) or 1 (max)");
  if (xs.empty()) return ffi::Error::InvalidArgument("hlo_test_combine: no operands");
  float* o = out->typed_data();
  size_t n = out->element_count();
  for (size_t a = 0; a < xs.size(); ++a) {
    ffi::ErrorOr<ffi::Buffer<ffi::F32>> x = xs.get<ffi::Buffer<ffi::F32>>(a);
    if (x.has_error()) return x.error();
    if (x->element_count() != n)
      return ffi::Error::InvalidArgument("hlo_test_combine: operands must have the result's shape");
    const float* v = x->typed_data();
    // One task per operand; the pool may run it at once or later, so wait.
    bool done = false;
    pool.Schedule([&] {
      for (size_t i = 0; i < n; ++i)
        o[i] = a == 0 ? v[i] : mode == Combine::kSum ? o[i] + v[i] : (v[i] > o[i] ? v[i] : o[i]);
      done = true;
    });
    if (!done)
      return ffi::Error::Unimplemented("hlo_test_combine: needs a pool that runs tasks at once");
  }
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_test_axpy, Axpy,
                              ffi::Ffi::Bind()
                                  .Attr<float>("alpha")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_test_attrs, Attrs,
                              ffi::Ffi::Bind()
                                  .Attr<int8_t>("a_i8")
                                  .Attr<int16_t>("b_i16")
                                  .Attr<int32_t>("c_i32")
                                  .Attr<int64_t>("d_i64")
                                  .Attr<uint8_t>("e_u8")
                                  .Attr<uint16_t>("f_u16")
                                  .Attr<uint32_t>("g_u32")
                                  .Attr<uint64_t>("h_u64")
                                  .Attr<float>("i_f32")
                                  .Attr<double>("j_f64")
                                  .Attr<bool>("k_bool")
                                  .Attr<std::string_view>("l_str")
                                  .Attr<ffi::Span<const int64_t>>("m_arr_i64")
                                  .Attr<ffi::Span<const float>>("n_arr_f32")
                                  .Attr<ffi::Dictionary>("o_dict")
                                  .Ret<ffi::Buffer<ffi::F64, 1>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hlo_test_any_sum, AnySum,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::BufferR0<ffi::F64>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    hlo_test_fail, Fail,
    ffi::Ffi::Bind().Attr<bool>("fail").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_test_two_results, TwoResults,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_test_dict_struct, DictStruct,
                              ffi::Ffi::Bind()
                                  .Attrs<Window>()
                                  .Arg<ffi::Buffer<ffi::F32, 1>>()
                                  .Ret<ffi::Buffer<ffi::F32, 1>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(hlo_test_combine, CombineAll,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<Combine>("mode")
                                  .RemainingArgs()
                                  .Ret<ffi::Buffer<ffi::F32>>());
