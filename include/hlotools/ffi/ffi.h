// hlotools' C++ header for XLA FFI handlers: code written for XLA's
// "xla/ffi/api/ffi.h" compiles against this one with only the include
// changed, and sees the same checks and error messages' substance.
//
//   #include "hlotools/ffi/ffi.h"
//   namespace ffi = xla::ffi;
//   static ffi::Error Axpy(float alpha, ffi::Buffer<ffi::F32> x,
//                          ffi::ResultBuffer<ffi::F32> y) { ...; return ffi::Error::Success(); }
//   XLA_FFI_DEFINE_HANDLER_SYMBOL(MyAxpy, Axpy,
//       ffi::Ffi::Bind().Attr<float>("alpha").Arg<ffi::Buffer<ffi::F32>>()
//                       .Ret<ffi::Buffer<ffi::F32>>());
//
// This file: element types, buffers, attributes (scalars, strings, arrays,
// dictionaries, user structs and enums) and Ctx<ThreadPool>.  The binding
// machinery is in api.h.  Not provided: Future results, Ctx of a device
// stream, user data or state (a compile error names it), and
// XLA_FFI_REGISTER_HANDLER (hlotools takes handlers by symbol name).
#ifndef HLOTOOLS_FFI_FFI_H
#define HLOTOOLS_FFI_FFI_H

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "hlotools/ffi/api.h"
#include "hlotools/ffi/c_api.h"

namespace xla::ffi {

// ---- element types --------------------------------------------------------

enum class DataType : uint8_t {
  INVALID = XLA_FFI_DataType_INVALID,
  PRED = XLA_FFI_DataType_PRED,
  S8 = XLA_FFI_DataType_S8,
  S16 = XLA_FFI_DataType_S16,
  S32 = XLA_FFI_DataType_S32,
  S64 = XLA_FFI_DataType_S64,
  U8 = XLA_FFI_DataType_U8,
  U16 = XLA_FFI_DataType_U16,
  U32 = XLA_FFI_DataType_U32,
  U64 = XLA_FFI_DataType_U64,
  F16 = XLA_FFI_DataType_F16,
  F32 = XLA_FFI_DataType_F32,
  F64 = XLA_FFI_DataType_F64,
  C64 = XLA_FFI_DataType_C64,
  BF16 = XLA_FFI_DataType_BF16,
  TOKEN = XLA_FFI_DataType_TOKEN,
  C128 = XLA_FFI_DataType_C128,
  F8E5M2 = XLA_FFI_DataType_F8E5M2,
  F8E4M3FN = XLA_FFI_DataType_F8E4M3FN,
  F8E4M3B11FNUZ = XLA_FFI_DataType_F8E4M3B11FNUZ,
  F8E5M2FNUZ = XLA_FFI_DataType_F8E5M2FNUZ,
  F8E4M3FNUZ = XLA_FFI_DataType_F8E4M3FNUZ,
  F8E4M3 = XLA_FFI_DataType_F8E4M3,
  F8E3M4 = XLA_FFI_DataType_F8E3M4,
};

// ffi::F32 etc., as XLA spells them in Buffer<ffi::F32>.
inline constexpr DataType PRED = DataType::PRED;
inline constexpr DataType S8 = DataType::S8;
inline constexpr DataType S16 = DataType::S16;
inline constexpr DataType S32 = DataType::S32;
inline constexpr DataType S64 = DataType::S64;
inline constexpr DataType U8 = DataType::U8;
inline constexpr DataType U16 = DataType::U16;
inline constexpr DataType U32 = DataType::U32;
inline constexpr DataType U64 = DataType::U64;
inline constexpr DataType F16 = DataType::F16;
inline constexpr DataType F32 = DataType::F32;
inline constexpr DataType F64 = DataType::F64;
inline constexpr DataType C64 = DataType::C64;
inline constexpr DataType BF16 = DataType::BF16;
inline constexpr DataType TOKEN = DataType::TOKEN;
inline constexpr DataType C128 = DataType::C128;
inline constexpr DataType F8E5M2 = DataType::F8E5M2;
inline constexpr DataType F8E4M3FN = DataType::F8E4M3FN;
inline constexpr DataType F8E4M3B11FNUZ = DataType::F8E4M3B11FNUZ;
inline constexpr DataType F8E5M2FNUZ = DataType::F8E5M2FNUZ;
inline constexpr DataType F8E4M3FNUZ = DataType::F8E4M3FNUZ;
inline constexpr DataType F8E4M3 = DataType::F8E4M3;
inline constexpr DataType F8E3M4 = DataType::F8E3M4;

inline const char* DataTypeName(int64_t dtype) {
  switch (dtype) {
    case XLA_FFI_DataType_INVALID: return "INVALID";
    case XLA_FFI_DataType_PRED: return "PRED";
    case XLA_FFI_DataType_S8: return "S8";
    case XLA_FFI_DataType_S16: return "S16";
    case XLA_FFI_DataType_S32: return "S32";
    case XLA_FFI_DataType_S64: return "S64";
    case XLA_FFI_DataType_U8: return "U8";
    case XLA_FFI_DataType_U16: return "U16";
    case XLA_FFI_DataType_U32: return "U32";
    case XLA_FFI_DataType_U64: return "U64";
    case XLA_FFI_DataType_F16: return "F16";
    case XLA_FFI_DataType_F32: return "F32";
    case XLA_FFI_DataType_F64: return "F64";
    case XLA_FFI_DataType_C64: return "C64";
    case XLA_FFI_DataType_BF16: return "BF16";
    case XLA_FFI_DataType_TOKEN: return "TOKEN";
    case XLA_FFI_DataType_C128: return "C128";
    case XLA_FFI_DataType_F8E5M2: return "F8E5M2";
    case XLA_FFI_DataType_F8E4M3FN: return "F8E4M3FN";
    case XLA_FFI_DataType_F8E4M3B11FNUZ: return "F8E4M3B11FNUZ";
    case XLA_FFI_DataType_F8E5M2FNUZ: return "F8E5M2FNUZ";
    case XLA_FFI_DataType_F8E4M3FNUZ: return "F8E4M3FNUZ";
    case XLA_FFI_DataType_F8E4M3: return "F8E4M3";
    case XLA_FFI_DataType_F8E3M4: return "F8E3M4";
    default: return "unknown data type";
  }
}
inline std::ostream& operator<<(std::ostream& os, DataType t) {
  return os << DataTypeName(static_cast<int64_t>(t));
}

// Bytes per element (0 for TOKEN and unknown types).
constexpr size_t ByteWidth(DataType t) {
  switch (t) {
    case DataType::PRED: case DataType::S8: case DataType::U8:
    case DataType::F8E5M2: case DataType::F8E4M3FN: case DataType::F8E4M3B11FNUZ:
    case DataType::F8E5M2FNUZ: case DataType::F8E4M3FNUZ: case DataType::F8E4M3:
    case DataType::F8E3M4:
      return 1;
    case DataType::S16: case DataType::U16: case DataType::F16: case DataType::BF16:
      return 2;
    case DataType::S32: case DataType::U32: case DataType::F32:
      return 4;
    case DataType::S64: case DataType::U64: case DataType::F64: case DataType::C64:
      return 8;
    case DataType::C128:
      return 16;
    default:
      return 0;
  }
}

namespace internal {
// The C++ type of an element; 16- and 8-bit floats are their bits.
template <DataType t> struct NativeTypeOf { using Type = void; };
#define HLOTOOLS_FFI_NATIVE(dt, T) \
  template <> struct NativeTypeOf<DataType::dt> { using Type = T; }
HLOTOOLS_FFI_NATIVE(PRED, bool);
HLOTOOLS_FFI_NATIVE(S8, int8_t);
HLOTOOLS_FFI_NATIVE(S16, int16_t);
HLOTOOLS_FFI_NATIVE(S32, int32_t);
HLOTOOLS_FFI_NATIVE(S64, int64_t);
HLOTOOLS_FFI_NATIVE(U8, uint8_t);
HLOTOOLS_FFI_NATIVE(U16, uint16_t);
HLOTOOLS_FFI_NATIVE(U32, uint32_t);
HLOTOOLS_FFI_NATIVE(U64, uint64_t);
HLOTOOLS_FFI_NATIVE(F16, uint16_t);
HLOTOOLS_FFI_NATIVE(BF16, uint16_t);
HLOTOOLS_FFI_NATIVE(F32, float);
HLOTOOLS_FFI_NATIVE(F64, double);
HLOTOOLS_FFI_NATIVE(C64, std::complex<float>);
HLOTOOLS_FFI_NATIVE(C128, std::complex<double>);
HLOTOOLS_FFI_NATIVE(F8E5M2, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E4M3FN, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E4M3B11FNUZ, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E5M2FNUZ, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E4M3FNUZ, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E4M3, uint8_t);
HLOTOOLS_FFI_NATIVE(F8E3M4, uint8_t);
#undef HLOTOOLS_FFI_NATIVE

// The data type of a C++ attribute type (scalars and array elements).
template <typename T> struct DataTypeOf;
#define HLOTOOLS_FFI_DTYPE_OF(T, dt) \
  template <> struct DataTypeOf<T> { static constexpr XLA_FFI_DataType value = dt; }
HLOTOOLS_FFI_DTYPE_OF(bool, XLA_FFI_DataType_PRED);
HLOTOOLS_FFI_DTYPE_OF(int8_t, XLA_FFI_DataType_S8);
HLOTOOLS_FFI_DTYPE_OF(int16_t, XLA_FFI_DataType_S16);
HLOTOOLS_FFI_DTYPE_OF(int32_t, XLA_FFI_DataType_S32);
HLOTOOLS_FFI_DTYPE_OF(int64_t, XLA_FFI_DataType_S64);
HLOTOOLS_FFI_DTYPE_OF(uint8_t, XLA_FFI_DataType_U8);
HLOTOOLS_FFI_DTYPE_OF(uint16_t, XLA_FFI_DataType_U16);
HLOTOOLS_FFI_DTYPE_OF(uint32_t, XLA_FFI_DataType_U32);
HLOTOOLS_FFI_DTYPE_OF(uint64_t, XLA_FFI_DataType_U64);
HLOTOOLS_FFI_DTYPE_OF(float, XLA_FFI_DataType_F32);
HLOTOOLS_FFI_DTYPE_OF(double, XLA_FFI_DataType_F64);
#undef HLOTOOLS_FFI_DTYPE_OF

inline size_t ElementCount(const int64_t* dims, int64_t rank) {
  size_t n = 1;
  for (int64_t i = 0; i < rank; ++i) n *= static_cast<size_t>(dims[i]);
  return n;
}
}  // namespace internal

template <DataType dtype>
using NativeType = typename internal::NativeTypeOf<dtype>::Type;

// ---- buffers --------------------------------------------------------------

using Dimensions = Span<const int64_t>;

// An operand or result of any element type and rank.
class AnyBuffer {
 public:
  using Dimensions = ::xla::ffi::Dimensions;
  explicit AnyBuffer(const XLA_FFI_Buffer* buf) : buf_(buf) {}

  DataType element_type() const { return static_cast<DataType>(buf_->dtype); }
  Dimensions dimensions() const { return Dimensions(buf_->dims, static_cast<size_t>(buf_->rank)); }
  size_t element_count() const { return internal::ElementCount(buf_->dims, buf_->rank); }
  size_t size_bytes() const { return element_count() * ByteWidth(element_type()); }
  void* untyped_data() const { return buf_->data; }
  // The data as T*: T must be the element type's C++ type (not checked, as
  // in XLA's release builds; compare element_type() first).
  template <typename T>
  T* typed_data() const {
    return static_cast<T*>(buf_->data);
  }
  template <typename T>
  T* reinterpret_data() const {
    return static_cast<T*>(buf_->data);
  }

 private:
  const XLA_FFI_Buffer* buf_;
};

inline constexpr size_t kDynamicRank = std::numeric_limits<size_t>::max();

// A buffer whose element type (and rank, unless kDynamicRank) the handler
// checks before it runs.
template <DataType dtype, size_t rank = kDynamicRank>
class Buffer {
 public:
  explicit Buffer(const XLA_FFI_Buffer* buf) : buf_(buf) {}

  DataType element_type() const { return dtype; }
  Dimensions dimensions() const { return Dimensions(buf_->dims, static_cast<size_t>(buf_->rank)); }
  size_t element_count() const { return internal::ElementCount(buf_->dims, buf_->rank); }
  size_t size_bytes() const { return element_count() * ByteWidth(dtype); }
  void* untyped_data() const { return buf_->data; }
  NativeType<dtype>* typed_data() const { return static_cast<NativeType<dtype>*>(buf_->data); }
  template <typename T>
  T* reinterpret_data() const {
    return static_cast<T*>(buf_->data);
  }

 private:
  const XLA_FFI_Buffer* buf_;
};

template <DataType dtype> using BufferR0 = Buffer<dtype, 0>;
template <DataType dtype> using BufferR1 = Buffer<dtype, 1>;
template <DataType dtype> using BufferR2 = Buffer<dtype, 2>;
template <DataType dtype> using BufferR3 = Buffer<dtype, 3>;
template <DataType dtype> using BufferR4 = Buffer<dtype, 4>;

template <DataType dtype, size_t rank = kDynamicRank>
using ResultBuffer = Result<Buffer<dtype, rank>>;
template <DataType dtype> using ResultBufferR0 = ResultBuffer<dtype, 0>;
template <DataType dtype> using ResultBufferR1 = ResultBuffer<dtype, 1>;
template <DataType dtype> using ResultBufferR2 = ResultBuffer<dtype, 2>;
template <DataType dtype> using ResultBufferR3 = ResultBuffer<dtype, 3>;
template <DataType dtype> using ResultBufferR4 = ResultBuffer<dtype, 4>;

namespace internal {
inline std::optional<const XLA_FFI_Buffer*> DecodeBuffer(XLA_FFI_ArgType type, void* arg,
                                                         DiagnosticEngine& d) {
  if (type != XLA_FFI_ArgType_BUFFER)
    return d.Emit("Wrong argument type: expected buffer but got ") << static_cast<int>(type);
  auto* buf = static_cast<const XLA_FFI_Buffer*>(arg);
  if (!buf || buf->struct_size != XLA_FFI_Buffer_STRUCT_SIZE)
    return d.Emit("Unexpected XLA_FFI_Buffer size: expected ")
           << XLA_FFI_Buffer_STRUCT_SIZE << " got " << (buf ? buf->struct_size : 0);
  return buf;
}
}  // namespace internal

template <>
struct ArgDecoding<AnyBuffer> {
  static std::optional<AnyBuffer> Decode(XLA_FFI_ArgType type, void* arg, DiagnosticEngine& d) {
    std::optional<const XLA_FFI_Buffer*> buf = internal::DecodeBuffer(type, arg, d);
    if (!buf) return std::nullopt;
    return AnyBuffer(*buf);
  }
};

template <DataType dtype, size_t rank>
struct ArgDecoding<Buffer<dtype, rank>> {
  static std::optional<Buffer<dtype, rank>> Decode(XLA_FFI_ArgType type, void* arg,
                                                   DiagnosticEngine& d) {
    std::optional<const XLA_FFI_Buffer*> buf = internal::DecodeBuffer(type, arg, d);
    if (!buf) return std::nullopt;
    if (static_cast<DataType>((*buf)->dtype) != dtype)
      return d.Emit("Wrong buffer dtype: expected ")
             << dtype << " but got " << DataTypeName((*buf)->dtype);
    if (rank != kDynamicRank && static_cast<size_t>((*buf)->rank) != rank)
      return d.Emit("Wrong buffer rank: expected ") << rank << " but got " << (*buf)->rank;
    return Buffer<dtype, rank>(*buf);
  }
};

// ---- the rest of the arguments and results --------------------------------

class RemainingArgs {
 public:
  RemainingArgs(const XLA_FFI_Args* args, int64_t offset) : args_(args), offset_(offset) {}
  size_t size() const { return static_cast<size_t>(args_->size - offset_); }
  bool empty() const { return size() == 0; }

  template <typename T>
  ErrorOr<T> get(size_t index) const {
    if (index >= size())
      return Error::InvalidArgument(internal::StrCat("Index out of range: ", index, " of ",
                                                     size(), " remaining arguments"));
    int64_t i = offset_ + static_cast<int64_t>(index);
    DiagnosticEngine d;
    std::optional<T> value = ArgDecoding<T>::Decode(args_->types[i], args_->args[i], d);
    if (!value) return Error::InvalidArgument(d.Result());
    return std::move(*value);
  }

 private:
  const XLA_FFI_Args* args_;
  int64_t offset_;
};

class RemainingRets {
 public:
  RemainingRets(const XLA_FFI_Rets* rets, int64_t offset) : rets_(rets), offset_(offset) {}
  size_t size() const { return static_cast<size_t>(rets_->size - offset_); }
  bool empty() const { return size() == 0; }

  template <typename T>
  ErrorOr<Result<T>> get(size_t index) const {
    if (index >= size())
      return Error::InvalidArgument(internal::StrCat("Index out of range: ", index, " of ",
                                                     size(), " remaining results"));
    int64_t i = offset_ + static_cast<int64_t>(index);
    if (rets_->types[i] != XLA_FFI_RetType_BUFFER)
      return Error::InvalidArgument("Wrong result type: expected buffer");
    DiagnosticEngine d;
    std::optional<T> value = ArgDecoding<T>::Decode(XLA_FFI_ArgType_BUFFER, rets_->rets[i], d);
    if (!value) return Error::InvalidArgument(d.Result());
    return Result<T>(std::move(*value));
  }

 private:
  const XLA_FFI_Rets* rets_;
  int64_t offset_;
};

namespace internal {
template <>
struct Decode<RemainingArgsTag> {
  using Type = RemainingArgs;
  static std::optional<RemainingArgs> call(DecodingState& s, DiagnosticEngine&) {
    return RemainingArgs(&s.frame->args, s.arg);
  }
};
template <>
struct Decode<RemainingRetsTag> {
  using Type = RemainingRets;
  static std::optional<RemainingRets> call(DecodingState& s, DiagnosticEngine&) {
    return RemainingRets(&s.frame->rets, s.ret);
  }
};

inline const char* AttrTypeName(XLA_FFI_AttrType type) {
  switch (type) {
    case XLA_FFI_AttrType_ARRAY: return "array";
    case XLA_FFI_AttrType_DICTIONARY: return "dictionary";
    case XLA_FFI_AttrType_SCALAR: return "scalar";
    case XLA_FFI_AttrType_STRING: return "string";
    default: return "unknown attribute type";
  }
}

inline bool CheckAttrType(XLA_FFI_AttrType expected, XLA_FFI_AttrType got, DiagnosticEngine& d) {
  if (expected == got) return true;
  d.Emit("Wrong attribute type: expected ")
      << AttrTypeName(expected) << " but got " << AttrTypeName(got);
  return false;
}
}  // namespace internal

// ---- attributes -----------------------------------------------------------

// Scalars: bool, int8_t..int64_t, uint8_t..uint64_t, float, double; the
// attribute's type must be exactly T's (an i32 attribute is not an int64_t).
template <typename T>
struct AttrDecoding {
  static_assert(std::is_arithmetic_v<T>,
                "no attribute decoding for this type: use a scalar, std::string_view, "
                "Span<const T>, Dictionary, or register an enum or struct");
  using Type = T;
  static std::optional<T> Decode(XLA_FFI_AttrType type, void* attr, DiagnosticEngine& d) {
    if (!internal::CheckAttrType(XLA_FFI_AttrType_SCALAR, type, d)) return std::nullopt;
    auto* scalar = static_cast<const XLA_FFI_Scalar*>(attr);
    constexpr XLA_FFI_DataType want = internal::DataTypeOf<T>::value;
    if (scalar->dtype != want)
      return d.Emit("Wrong scalar data type: expected ")
             << DataTypeName(want) << " but got " << DataTypeName(scalar->dtype);
    return *static_cast<const T*>(scalar->value);
  }
};

template <>
struct AttrDecoding<std::string_view> {
  using Type = std::string_view;
  static std::optional<std::string_view> Decode(XLA_FFI_AttrType type, void* attr,
                                                DiagnosticEngine& d) {
    if (!internal::CheckAttrType(XLA_FFI_AttrType_STRING, type, d)) return std::nullopt;
    auto* span = static_cast<const XLA_FFI_ByteSpan*>(attr);
    return std::string_view(span->ptr, span->len);
  }
};

// Arrays: Span<const T> for the scalar types above, element type exact.
template <typename T>
struct AttrDecoding<Span<const T>> {
  using Type = Span<const T>;
  static std::optional<Type> Decode(XLA_FFI_AttrType type, void* attr, DiagnosticEngine& d) {
    if (!internal::CheckAttrType(XLA_FFI_AttrType_ARRAY, type, d)) return std::nullopt;
    auto* array = static_cast<const XLA_FFI_Array*>(attr);
    constexpr XLA_FFI_DataType want = internal::DataTypeOf<T>::value;
    if (array->dtype != want)
      return d.Emit("Wrong array data type: expected ")
             << DataTypeName(want) << " but got " << DataTypeName(array->dtype);
    return Type(static_cast<const T*>(array->data), array->size);
  }
};

// A dictionary attribute, or all of a call's attributes (Attrs<Dictionary>()).
class Dictionary {
 public:
  explicit Dictionary(const XLA_FFI_Attrs* attrs) : attrs_(attrs) {}

  size_t size() const { return static_cast<size_t>(attrs_->size); }
  bool contains(std::string_view name) const { return internal::FindAttr(*attrs_, name) >= 0; }

  template <typename T>
  ErrorOr<typename AttrDecoding<T>::Type> get(std::string_view name) const {
    DiagnosticEngine d;
    std::optional<typename AttrDecoding<T>::Type> value = get<T>(name, d);
    if (!value) return Error::InvalidArgument(d.Result());
    return std::move(*value);
  }

  template <typename T>
  std::optional<typename AttrDecoding<T>::Type> get(std::string_view name,
                                                    DiagnosticEngine& d) const {
    int64_t i = internal::FindAttr(*attrs_, name);
    if (i < 0) return d.Emit("Unexpected attribute: ") << name;
    std::optional<typename AttrDecoding<T>::Type> value =
        AttrDecoding<T>::Decode(attrs_->types[i], attrs_->attrs[i], d);
    if (!value) d.Emit("  in attribute '") << name << "'";
    return value;
  }

 private:
  const XLA_FFI_Attrs* attrs_;
};

template <>
struct AttrDecoding<Dictionary> {
  using Type = Dictionary;
  static std::optional<Dictionary> Decode(XLA_FFI_AttrType type, void* attr,
                                          DiagnosticEngine& d) {
    if (!internal::CheckAttrType(XLA_FFI_AttrType_DICTIONARY, type, d)) return std::nullopt;
    return Dictionary(static_cast<const XLA_FFI_Attrs*>(attr));
  }
};

// A member of a struct decoded from a dictionary, by name:
//   XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(Range, StructMember<int64_t>("lo"),
//                                         StructMember<int64_t>("hi"));
// The struct is brace-initialized from the members in the order given; the
// dictionary must have exactly these names.
template <typename T>
struct StructMember {
  using Type = T;
  explicit StructMember(std::string_view member_name) : name(member_name) {}
  std::string_view name;
};

namespace internal {
template <typename T, typename... Ms>
std::optional<T> DecodeStruct(XLA_FFI_AttrType type, void* attr, DiagnosticEngine& d,
                              const Ms&... members) {
  if (!CheckAttrType(XLA_FFI_AttrType_DICTIONARY, type, d)) return std::nullopt;
  auto* attrs = static_cast<const XLA_FFI_Attrs*>(attr);
  if (attrs->size != static_cast<int64_t>(sizeof...(Ms)))
    return d.Emit("Wrong number of attributes: expected ")
           << sizeof...(Ms) << " attributes but got " << attrs->size << " ("
           << AttrNames(*attrs) << ")";
  Dictionary dict(attrs);
  std::tuple<std::optional<typename AttrDecoding<typename Ms::Type>::Type>...> values{
      dict.get<typename Ms::Type>(members.name, d)...};
  return std::apply(
      [](auto&... v) -> std::optional<T> {
        if (!(true && ... && v.has_value())) return std::nullopt;
        return T{std::move(*v)...};
      },
      values);
}
}  // namespace internal

namespace internal {
template <>
struct Decode<AttrsTag<Dictionary>> {
  using Type = Dictionary;
  static std::optional<Dictionary> call(DecodingState& s, DiagnosticEngine&) {
    return Dictionary(&s.frame->attrs);
  }
};
template <typename T>
struct Decode<AttrsTag<T>> {
  using Type = T;
  static std::optional<T> call(DecodingState& s, DiagnosticEngine& d) {
    return AttrDecoding<T>::Decode(XLA_FFI_AttrType_DICTIONARY,
                                   const_cast<XLA_FFI_Attrs*>(&s.frame->attrs), d);
  }
};
}  // namespace internal

// ---- Ctx<ThreadPool> ------------------------------------------------------

// The runtime's thread pool (hlotools runs a task at once on the calling
// thread).  If the runtime cannot schedule, the task runs here, so a task
// always runs exactly once.
class ThreadPool {
 public:
  ThreadPool(const XLA_FFI_Api* api, XLA_FFI_ExecutionContext* ctx) : api_(api), ctx_(ctx) {}

  template <typename F>
  void Schedule(F&& f) {
    auto* task = new std::function<void()>(std::forward<F>(f));
    XLA_FFI_ThreadPool_Schedule_Args args;
    args.struct_size = XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx_;
    args.task = &Run;
    args.data = task;
    XLA_FFI_Error* err = api_->XLA_FFI_ThreadPool_Schedule
                             ? api_->XLA_FFI_ThreadPool_Schedule(&args)
                             : nullptr;
    if (!api_->XLA_FFI_ThreadPool_Schedule || err) {
      if (err) {
        XLA_FFI_Error_Destroy_Args dargs{XLA_FFI_Error_Destroy_Args_STRUCT_SIZE, nullptr, err};
        api_->XLA_FFI_Error_Destroy(&dargs);
      }
      Run(task);
    }
  }

 private:
  static void Run(void* data) {
    auto* task = static_cast<std::function<void()>*>(data);
    (*task)();
    delete task;
  }

  const XLA_FFI_Api* api_;
  XLA_FFI_ExecutionContext* ctx_;
};

template <>
struct CtxDecoding<ThreadPool> {
  using Type = ThreadPool;
  static std::optional<ThreadPool> Decode(const XLA_FFI_Api* api, XLA_FFI_ExecutionContext* ctx,
                                          DiagnosticEngine&) {
    return ThreadPool(api, ctx);
  }
};

}  // namespace xla::ffi

// An enum attribute, stored as its underlying integer type:
//   enum class Mode : int32_t { kA = 0, kB = 1 };
//   XLA_FFI_REGISTER_ENUM_ATTR_DECODING(Mode);   // then Attr<Mode>("mode")
// Use at global namespace scope.
#define XLA_FFI_REGISTER_ENUM_ATTR_DECODING(T)                                              \
  template <>                                                                              \
  struct xla::ffi::AttrDecoding<T> {                                                       \
    static_assert(std::is_enum_v<T>, "XLA_FFI_REGISTER_ENUM_ATTR_DECODING needs an enum"); \
    using Type = T;                                                                        \
    static std::optional<T> Decode(XLA_FFI_AttrType type, void* attr,                      \
                                   ::xla::ffi::DiagnosticEngine& d) {                      \
      std::optional<std::underlying_type_t<T>> v =                                         \
          ::xla::ffi::AttrDecoding<std::underlying_type_t<T>>::Decode(type, attr, d);      \
      if (!v) return std::nullopt;                                                         \
      return static_cast<T>(*v);                                                           \
    }                                                                                      \
  }

// A struct attribute (or Attrs<T>()) from a dictionary: see StructMember.
// Use at global namespace scope.
#define XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(T, ...)                                   \
  template <>                                                                          \
  struct xla::ffi::AttrDecoding<T> {                                                   \
    using Type = T;                                                                    \
    static std::optional<T> Decode(XLA_FFI_AttrType type, void* attr,                  \
                                   ::xla::ffi::DiagnosticEngine& d) {                  \
      return ::xla::ffi::internal::DecodeStruct<T>(type, attr, d, __VA_ARGS__);        \
    }                                                                                  \
  }

#endif
