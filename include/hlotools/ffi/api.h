// The core of hlotools' C++ binding for XLA FFI handlers: errors, spans,
// diagnostics, and the Binding/Handler templates that decode an
// XLA_FFI_CallFrame into the arguments of a C++ function and call it.
//
// Written for hlotools from the C ABI (c_api.h) and the public surface of
// XLA's xla/ffi/api/api.h, so that a handler written against XLA's header
// compiles here with only the include changed.  Header-only, C++17, std
// only.  The types users name (Buffer, Dictionary, ...) and the decoders
// for them are in ffi.h, which includes this file; include ffi.h.
//
// What a handler checks before it runs (each failure is an XLA_FFI_Error
// the handler returns, never an abort):
//   1. the call frame's struct_size is this ABI's;
//   2. a metadata query (extension XLA_FFI_Extension_Metadata) is answered
//      with API version 0.1 and the handler's traits, and nothing runs;
//   3. the runtime's API version is 0.1;
//   4. the call frame's stage is the handler's;
//   5. the numbers of arguments, results and attributes match the binding;
//   6. every argument, result and attribute decodes (type, dtype, rank,
//      name); all failures are reported together, by position.
#ifndef HLOTOOLS_FFI_API_H
#define HLOTOOLS_FFI_API_H

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "hlotools/ffi/c_api.h"

namespace xla::ffi {

// ---- enums with the ABI's values ----------------------------------------

enum class ErrorCode : uint8_t {
  kOk = XLA_FFI_Error_Code_OK,
  kCancelled = XLA_FFI_Error_Code_CANCELLED,
  kUnknown = XLA_FFI_Error_Code_UNKNOWN,
  kInvalidArgument = XLA_FFI_Error_Code_INVALID_ARGUMENT,
  kDeadlineExceeded = XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
  kNotFound = XLA_FFI_Error_Code_NOT_FOUND,
  kAlreadyExists = XLA_FFI_Error_Code_ALREADY_EXISTS,
  kPermissionDenied = XLA_FFI_Error_Code_PERMISSION_DENIED,
  kResourceExhausted = XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
  kFailedPrecondition = XLA_FFI_Error_Code_FAILED_PRECONDITION,
  kAborted = XLA_FFI_Error_Code_ABORTED,
  kOutOfRange = XLA_FFI_Error_Code_OUT_OF_RANGE,
  kUnimplemented = XLA_FFI_Error_Code_UNIMPLEMENTED,
  kInternal = XLA_FFI_Error_Code_INTERNAL,
  kUnavailable = XLA_FFI_Error_Code_UNAVAILABLE,
  kDataLoss = XLA_FFI_Error_Code_DATA_LOSS,
  kUnauthenticated = XLA_FFI_Error_Code_UNAUTHENTICATED,
};

enum class ExecutionStage : uint8_t {
  kInstantiate = XLA_FFI_ExecutionStage_INSTANTIATE,
  kPrepare = XLA_FFI_ExecutionStage_PREPARE,
  kInitialize = XLA_FFI_ExecutionStage_INITIALIZE,
  kExecute = XLA_FFI_ExecutionStage_EXECUTE,
};

enum class Traits : uint32_t {
  kCmdBufferCompatible = XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE,
};

namespace internal {
inline const char* StageName(int64_t stage) {
  switch (stage) {
    case XLA_FFI_ExecutionStage_INSTANTIATE: return "instantiate";
    case XLA_FFI_ExecutionStage_PREPARE: return "prepare";
    case XLA_FFI_ExecutionStage_INITIALIZE: return "initialize";
    case XLA_FFI_ExecutionStage_EXECUTE: return "execute";
    default: return "unknown";
  }
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace internal

// ---- Error, ErrorOr ------------------------------------------------------

// The result of a handler: success, or a code and a message that the
// runtime receives as an XLA_FFI_Error.
class Error {
 public:
  Error() = default;
  Error(ErrorCode errc, std::string message) : errc_(errc), message_(std::move(message)) {}
  Error(XLA_FFI_Error_Code errc, std::string message)
      : Error(static_cast<ErrorCode>(errc), std::move(message)) {}

  bool success() const { return errc_ == ErrorCode::kOk; }
  bool failure() const { return !success(); }
  ErrorCode errc() const { return errc_; }
  const std::string& message() const { return message_; }

  static Error Success() { return Error(); }
  static Error Internal(std::string m) { return Error(ErrorCode::kInternal, std::move(m)); }
  static Error InvalidArgument(std::string m) {
    return Error(ErrorCode::kInvalidArgument, std::move(m));
  }
  static Error NotFound(std::string m) { return Error(ErrorCode::kNotFound, std::move(m)); }
  static Error OutOfRange(std::string m) { return Error(ErrorCode::kOutOfRange, std::move(m)); }
  static Error FailedPrecondition(std::string m) {
    return Error(ErrorCode::kFailedPrecondition, std::move(m));
  }
  static Error Unimplemented(std::string m) {
    return Error(ErrorCode::kUnimplemented, std::move(m));
  }

 private:
  ErrorCode errc_ = ErrorCode::kOk;
  std::string message_;
};

// A value or the Error that stopped it.  value() and operator* on an error
// throw std::bad_optional_access, which the handler turns into an INTERNAL
// error rather than letting it escape into the C runtime.
template <typename T>
class ErrorOr {
 public:
  ErrorOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit like XLA's
  ErrorOr(Error error) : error_(std::move(error)) {
    if (error_.success()) error_ = Error::Internal("ErrorOr made from a success Error");
  }

  bool has_value() const { return value_.has_value(); }
  bool has_error() const { return !has_value(); }
  explicit operator bool() const { return has_value(); }

  T& value() & { return value_.value(); }
  const T& value() const& { return value_.value(); }
  T&& value() && { return std::move(value_.value()); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

// ---- Span ----------------------------------------------------------------

// A view of size() elements at data(), as XLA's ffi::Span.
template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <typename C, typename = decltype(std::declval<C&>().data()),
            typename = decltype(std::declval<C&>().size())>
  Span(C& container) : data_(container.data()), size_(container.size()) {}  // NOLINT
  template <typename C, typename = decltype(std::declval<const C&>().data()),
            typename = decltype(std::declval<const C&>().size())>
  Span(const C& container) : data_(container.data()), size_(container.size()) {}  // NOLINT

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T& front() const { return data_[0]; }
  constexpr T& back() const { return data_[size_ - 1]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// ---- diagnostics ---------------------------------------------------------

// Collects the messages of failed decodings.  A decoder writes
//   return diagnostic.Emit("Wrong buffer rank: expected ") << r << ...;
// the in-flight diagnostic converts to an empty std::optional of any type.
class DiagnosticEngine {
 public:
  class InFlightDiagnostic {
   public:
    explicit InFlightDiagnostic(std::string* text) : text_(text) {}
    template <typename V>
    InFlightDiagnostic& operator<<(const V& v) {
      std::ostringstream os;
      os << v;
      text_->append(os.str());
      return *this;
    }
    template <typename T>
    operator std::optional<T>() const {  // NOLINT: the point of the class
      return std::nullopt;
    }

   private:
    std::string* text_;
  };

  InFlightDiagnostic Emit(std::string_view message) {
    if (!text_.empty()) text_.push_back('\n');
    text_.append(message);
    return InFlightDiagnostic(&text_);
  }
  const std::string& Result() const { return text_; }

 private:
  std::string text_;
};

// ---- decoding hooks (specialized in ffi.h) -------------------------------

class Dictionary;

// ArgDecoding<T>::Decode(XLA_FFI_ArgType, void*, DiagnosticEngine&)
//   -> std::optional<T>: an argument, and (through Result<T>) a result.
template <typename T>
struct ArgDecoding;
// AttrDecoding<T>: using Type = ...; static std::optional<Type>
//   Decode(XLA_FFI_AttrType, void* attr, DiagnosticEngine&).
template <typename T>
struct AttrDecoding;
// CtxDecoding<T>: using Type = ...; static std::optional<Type>
//   Decode(const XLA_FFI_Api*, XLA_FFI_ExecutionContext*, DiagnosticEngine&).
template <typename T>
struct CtxDecoding {
  static_assert(sizeof(T) == 0,
                "Ctx<T>: hlotools' ffi.h decodes Ctx<ThreadPool> only (there is no device "
                "stream or user data on hlotools' CPU runtime)");
};

// A result of the handler: T (a buffer) that the handler writes.
template <typename T>
class Result {
 public:
  explicit Result(T value) : value_(std::move(value)) {}
  T& operator*() { return value_; }
  T* operator->() { return &value_; }
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }

 private:
  T value_;
};

// ---- binding tags --------------------------------------------------------

namespace internal {
template <typename T>
struct ArgTag {};
template <typename T>
struct RetTag {};
template <typename T>
struct AttrTag {};
template <typename T>
struct AttrsTag {};
template <typename T>
struct CtxTag {};
struct RemainingArgsTag {};
struct RemainingRetsTag {};

template <typename T>
struct TagKind {  // how many of each kind a tag is
  static constexpr int64_t args = 0, rets = 0, attrs = 0, dicts = 0, rest_args = 0,
                           rest_rets = 0;
};
template <typename T>
struct TagKind<ArgTag<T>> : TagKind<void> {
  static constexpr int64_t args = 1;
};
template <typename T>
struct TagKind<RetTag<T>> : TagKind<void> {
  static constexpr int64_t rets = 1;
};
template <typename T>
struct TagKind<AttrTag<T>> : TagKind<void> {
  static constexpr int64_t attrs = 1;
};
template <typename T>
struct TagKind<AttrsTag<T>> : TagKind<void> {
  static constexpr int64_t dicts = 1;
};
template <>
struct TagKind<RemainingArgsTag> : TagKind<void> {
  static constexpr int64_t rest_args = 1;
};
template <>
struct TagKind<RemainingRetsTag> : TagKind<void> {
  static constexpr int64_t rest_rets = 1;
};

// Where the next argument, result and named attribute are.
struct DecodingState {
  const XLA_FFI_CallFrame* frame;
  const std::vector<std::string>* attr_names;  // the binding's, in order
  int64_t arg = 0, ret = 0, attr = 0;
};

template <typename Tag>
struct Decode;  // Decode<Tag>::call(DecodingState&, DiagnosticEngine&)

template <typename T>
struct Decode<ArgTag<T>> {
  using Type = T;
  static std::optional<T> call(DecodingState& s, DiagnosticEngine& d) {
    int64_t i = s.arg++;
    return ArgDecoding<T>::Decode(s.frame->args.types[i], s.frame->args.args[i], d);
  }
};

template <typename T>
struct Decode<RetTag<T>> {
  using Type = Result<T>;
  static std::optional<Result<T>> call(DecodingState& s, DiagnosticEngine& d) {
    int64_t i = s.ret++;
    XLA_FFI_RetType type = s.frame->rets.types[i];
    if (type != XLA_FFI_RetType_BUFFER)
      return d.Emit("Wrong result type: expected buffer but got ") << static_cast<int>(type);
    std::optional<T> value =
        ArgDecoding<T>::Decode(XLA_FFI_ArgType_BUFFER, s.frame->rets.rets[i], d);
    if (!value) return std::nullopt;
    return Result<T>(std::move(*value));
  }
};

template <typename T>
struct Decode<CtxTag<T>> {
  using Type = typename CtxDecoding<T>::Type;
  static std::optional<Type> call(DecodingState& s, DiagnosticEngine& d) {
    return CtxDecoding<T>::Decode(s.frame->api, s.frame->ctx, d);
  }
};

// Attributes come sorted by name; the count check has made sure there are
// exactly as many as the binding names.  Look the name up (a linear scan:
// attribute lists are short) so a misspelt or missing name is reported as
// such, not as the neighbour's type.
inline int64_t FindAttr(const XLA_FFI_Attrs& attrs, std::string_view name) {
  for (int64_t i = 0; i < attrs.size; ++i) {
    const XLA_FFI_ByteSpan* n = attrs.names[i];
    if (std::string_view(n->ptr, n->len) == name) return i;
  }
  return -1;
}

inline std::string AttrNames(const XLA_FFI_Attrs& attrs) {
  std::string out;
  for (int64_t i = 0; i < attrs.size; ++i) {
    if (i) out += ", ";
    out.append(attrs.names[i]->ptr, attrs.names[i]->len);
  }
  return out.empty() ? "none" : out;
}

template <typename T>
struct Decode<AttrTag<T>> {
  using Type = typename AttrDecoding<T>::Type;
  static std::optional<Type> call(DecodingState& s, DiagnosticEngine& d) {
    const std::string& name = (*s.attr_names)[static_cast<size_t>(s.attr++)];
    const XLA_FFI_Attrs& attrs = s.frame->attrs;
    int64_t i = FindAttr(attrs, name);
    if (i < 0)
      return d.Emit("Attribute name mismatch: the call has no attribute '")
             << name << "' (it has: " << AttrNames(attrs) << ")";
    std::optional<Type> value = AttrDecoding<T>::Decode(attrs.types[i], attrs.attrs[i], d);
    if (!value) d.Emit("  in attribute '") << name << "'";
    return value;
  }
};
}  // namespace internal

// ---- Binding -------------------------------------------------------------

template <ExecutionStage stage, typename Fn, typename... Ts>
class Handler;

// The signature of a handler, built one call at a time:
//   Ffi::Bind().Arg<Buffer<F32>>().Attr<float>("alpha").Ret<Buffer<F32>>()
// and closed with .To(fn).
template <ExecutionStage stage, typename... Ts>
class Binding {
  static constexpr int64_t kAttrs = (int64_t{0} + ... + internal::TagKind<Ts>::attrs);
  static constexpr int64_t kDicts = (int64_t{0} + ... + internal::TagKind<Ts>::dicts);
  static constexpr int64_t kRestArgs = (int64_t{0} + ... + internal::TagKind<Ts>::rest_args);
  static constexpr int64_t kRestRets = (int64_t{0} + ... + internal::TagKind<Ts>::rest_rets);

 public:
  template <typename T>
  Binding<stage, Ts..., internal::ArgTag<T>> Arg() {
    static_assert(kRestArgs == 0, "Arg<T>() after RemainingArgs()");
    return {std::move(attrs_)};
  }
  template <typename T>
  Binding<stage, Ts..., internal::RetTag<T>> Ret() {
    static_assert(kRestRets == 0, "Ret<T>() after RemainingRets()");
    return {std::move(attrs_)};
  }
  Binding<stage, Ts..., internal::RemainingArgsTag> RemainingArgs() {
    static_assert(kRestArgs == 0, "RemainingArgs() can be bound once");
    return {std::move(attrs_)};
  }
  Binding<stage, Ts..., internal::RemainingRetsTag> RemainingRets() {
    static_assert(kRestRets == 0, "RemainingRets() can be bound once");
    return {std::move(attrs_)};
  }
  template <typename T>
  Binding<stage, Ts..., internal::AttrTag<T>> Attr(std::string name) {
    static_assert(kDicts == 0, "Attr<T>(name) cannot be mixed with Attrs<T>()");
    attrs_.push_back(std::move(name));
    return {std::move(attrs_)};
  }
  template <typename T = Dictionary>
  Binding<stage, Ts..., internal::AttrsTag<T>> Attrs() {
    static_assert(kAttrs == 0 && kDicts == 0,
                  "Attrs<T>() takes all attributes: bind it once and without Attr<T>(name)");
    return {std::move(attrs_)};
  }
  template <typename T>
  Binding<stage, Ts..., internal::CtxTag<T>> Ctx() {
    return {std::move(attrs_)};
  }

  template <typename Fn>
  std::unique_ptr<Handler<stage, Fn, Ts...>> To(Fn fn) {
    return std::unique_ptr<Handler<stage, Fn, Ts...>>(
        new Handler<stage, Fn, Ts...>(std::move(fn), std::move(attrs_)));
  }

  Binding(std::vector<std::string> attrs) : attrs_(std::move(attrs)) {}  // NOLINT

 private:
  std::vector<std::string> attrs_;  // the names of Attr<T>(name), in order
};

// ---- Ffi: the base of every handler --------------------------------------

class Ffi {
 public:
  template <ExecutionStage stage = ExecutionStage::kExecute>
  static Binding<stage> Bind() {
    return Binding<stage>(std::vector<std::string>{});
  }

  virtual ~Ffi() = default;
  virtual XLA_FFI_Error* Call(const XLA_FFI_CallFrame* call_frame) const = 0;

  static XLA_FFI_Error* MakeError(const XLA_FFI_Api* api, XLA_FFI_Error_Code errc,
                                  const std::string& message) {
    XLA_FFI_Error_Create_Args args;
    args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.message = message.c_str();
    args.errc = errc;
    return api->XLA_FFI_Error_Create(&args);
  }
  static XLA_FFI_Error* InvalidArgument(const XLA_FFI_Api* api, const std::string& message) {
    return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, message);
  }
};

// ---- Handler -------------------------------------------------------------

namespace internal {
template <typename Tag>
struct FnArg {
  using Type = typename Decode<Tag>::Type;
};
}  // namespace internal

template <ExecutionStage stage, typename Fn, typename... Ts>
class Handler : public Ffi {
  static constexpr size_t kSize = sizeof...(Ts);
  static constexpr int64_t kArgs = (int64_t{0} + ... + internal::TagKind<Ts>::args);
  static constexpr int64_t kRets = (int64_t{0} + ... + internal::TagKind<Ts>::rets);
  static constexpr int64_t kAttrs = (int64_t{0} + ... + internal::TagKind<Ts>::attrs);
  static constexpr int64_t kDicts = (int64_t{0} + ... + internal::TagKind<Ts>::dicts);
  static constexpr bool kRestArgs = (false || ... || internal::TagKind<Ts>::rest_args);
  static constexpr bool kRestRets = (false || ... || internal::TagKind<Ts>::rest_rets);

  static_assert(std::is_invocable_v<Fn, typename internal::FnArg<Ts>::Type...>,
                "the function's parameters do not match the binding");
  static_assert(std::is_same_v<std::invoke_result_t<Fn, typename internal::FnArg<Ts>::Type...>,
                               Error>,
                "a handler returns xla::ffi::Error (hlotools does not decode Future results)");

 public:
  Handler(Fn fn, std::vector<std::string> attrs) : fn_(std::move(fn)), attrs_(std::move(attrs)) {}

  void set_stage(ExecutionStage s) { stage_ = s; }
  void add_traits(XLA_FFI_Handler_Traits t) { traits_ |= t; }

  XLA_FFI_Error* Call(const XLA_FFI_CallFrame* frame) const override {
    // An exception must not unwind into the C runtime.
    try {
      return Checked(frame);
    } catch (const std::exception& e) {
      return MakeError(frame->api, XLA_FFI_Error_Code_INTERNAL,
                       internal::StrCat("FFI handler threw an exception: ", e.what()));
    } catch (...) {
      return MakeError(frame->api, XLA_FFI_Error_Code_INTERNAL,
                       "FFI handler threw an exception");
    }
  }

 private:
  XLA_FFI_Error* Checked(const XLA_FFI_CallFrame* frame) const {
    using internal::StrCat;
    const XLA_FFI_Api* api = frame->api;
    if (frame->struct_size != XLA_FFI_CallFrame_STRUCT_SIZE)
      return InvalidArgument(api, StrCat("Unexpected XLA_FFI_CallFrame size: expected ",
                                         XLA_FFI_CallFrame_STRUCT_SIZE, " got ",
                                         frame->struct_size,
                                         ". Check installed software versions."));
    for (XLA_FFI_Extension_Base* ext = frame->extension_start; ext; ext = ext->next) {
      if (ext->type != XLA_FFI_Extension_Metadata) continue;
      auto* md = reinterpret_cast<XLA_FFI_Metadata_Extension*>(ext)->metadata;
      if (!md || md->struct_size != XLA_FFI_Metadata_STRUCT_SIZE)
        return InvalidArgument(api, StrCat("Unexpected XLA_FFI_Metadata size: expected ",
                                           XLA_FFI_Metadata_STRUCT_SIZE, " got ",
                                           md ? md->struct_size : 0));
      md->api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
      md->api_version.extension_start = nullptr;
      md->api_version.major_version = XLA_FFI_API_MAJOR;
      md->api_version.minor_version = XLA_FFI_API_MINOR;
      md->traits = traits_;
      return nullptr;
    }
    if (api->api_version.major_version != XLA_FFI_API_MAJOR ||
        api->api_version.minor_version != XLA_FFI_API_MINOR)
      return MakeError(api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
                       StrCat("XLA FFI API version mismatch: the handler was built for ",
                              XLA_FFI_API_MAJOR, ".", XLA_FFI_API_MINOR,
                              ", the runtime provides ", api->api_version.major_version, ".",
                              api->api_version.minor_version));
    if (frame->stage != static_cast<XLA_FFI_ExecutionStage>(stage_))
      return InvalidArgument(api, StrCat("Wrong execution stage: expected ",
                                         internal::StageName(static_cast<int64_t>(stage_)),
                                         " but got ", internal::StageName(frame->stage)));
    if (kRestArgs ? frame->args.size < kArgs : frame->args.size != kArgs)
      return InvalidArgument(api, StrCat("Wrong number of arguments: expected ",
                                         kRestArgs ? "at least " : "", kArgs, " but got ",
                                         frame->args.size));
    if (kRestRets ? frame->rets.size < kRets : frame->rets.size != kRets)
      return InvalidArgument(api, StrCat("Wrong number of results: expected ",
                                         kRestRets ? "at least " : "", kRets, " but got ",
                                         frame->rets.size));
    // Attrs<T>() takes the whole dictionary; T's decoder checks it.
    if (kDicts == 0 && frame->attrs.size != kAttrs)
      return InvalidArgument(api, StrCat("Wrong number of attributes: expected ", kAttrs,
                                         " but got ", frame->attrs.size, " (",
                                         internal::AttrNames(frame->attrs), ")"));
    return DecodeAndCall(frame, std::make_index_sequence<kSize>{});
  }

  template <size_t... Is>
  XLA_FFI_Error* DecodeAndCall(const XLA_FFI_CallFrame* frame, std::index_sequence<Is...>) const {
    internal::DecodingState state{frame, &attrs_};
    DiagnosticEngine diagnostic;
    // Braced initialization runs the decoders left to right, which the
    // running argument, result and attribute positions rely on.
    std::tuple<std::optional<typename internal::FnArg<Ts>::Type>...> args{
        internal::Decode<Ts>::call(state, diagnostic)...};
    if (!(true && ... && std::get<Is>(args).has_value())) {
      std::string message = "Failed to decode all FFI handler operands (bad operands at:";
      const bool ok[] = {true, std::get<Is>(args).has_value()...};
      const char* sep = " ";
      for (size_t i = 0; i < kSize; ++i) {
        if (ok[i + 1]) continue;
        message += sep + std::to_string(i);
        sep = ", ";
      }
      message += ")";
      if (!diagnostic.Result().empty()) message += "\nDiagnostics:\n" + diagnostic.Result();
      return InvalidArgument(frame->api, message);
    }
    Error result = fn_(std::move(*std::get<Is>(args))...);
    if (result.success()) return nullptr;
    return MakeError(frame->api, static_cast<XLA_FFI_Error_Code>(result.errc()),
                     result.message());
  }

  Fn fn_;
  std::vector<std::string> attrs_;
  ExecutionStage stage_ = stage;
  XLA_FFI_Handler_Traits traits_ = 0;
};

namespace internal {
// What XLA_FFI_DEFINE_HANDLER's optional arguments may be: a stage (which
// overrides the binding's) and Traits values, or'ed together.
template <typename H>
void Configure(H&) {}
template <typename H, typename... Rest>
void Configure(H& h, ExecutionStage s, Rest... rest) {
  h.set_stage(s);
  Configure(h, rest...);
}
template <typename H, typename... Rest>
void Configure(H& h, Traits t, Rest... rest) {
  h.add_traits(static_cast<XLA_FFI_Handler_Traits>(t));
  Configure(h, rest...);
}
template <typename Fn, typename B, typename... Options>
auto Define(Fn fn, B&& binding, Options... options) {
  auto handler = std::forward<B>(binding).To(std::move(fn));
  Configure(*handler, options...);
  return handler;
}
}  // namespace internal

}  // namespace xla::ffi

// XLA_FFI_DEFINE_HANDLER(fn, impl, binding[, stage][, traits]): a static
// XLA_FFI_Handler* named fn that decodes a call frame by `binding` and
// calls impl.  The binding may contain unparenthesized commas
// (Buffer<F32, 2>): everything after impl goes to one function call.
#define XLA_FFI_DEFINE_HANDLER(fn, impl, ...)                                                  \
  static constexpr XLA_FFI_Handler* fn = +[](XLA_FFI_CallFrame* call_frame) -> XLA_FFI_Error* { \
    static auto* handler = ::xla::ffi::internal::Define(impl, __VA_ARGS__).release();           \
    return handler->Call(call_frame);                                                           \
  }

// The same as an exported C symbol, for dlsym: build the library with
// -fvisibility=hidden and only these are visible.
#define XLA_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, ...)                                         \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* fn(                      \
      XLA_FFI_CallFrame* call_frame) {                                                      \
    static auto* handler = ::xla::ffi::internal::Define(impl, __VA_ARGS__).release();       \
    return handler->Call(call_frame);                                                       \
  }

#endif
