// Self-test of include/hlotools/ffi/ffi.h without hlorun: call frames built
// by hand, a fake XLA_FFI_Api (errors, thread pool), the handlers of
// tests/ffi/handlers.cc called directly.  Expected values are worked out by
// hand in the comments; each check prints what it saw when it fails.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hlotools/ffi/c_api.h"
#include "hlotools/ffi/ffi.h"

namespace ffi = xla::ffi;

extern "C" {
XLA_FFI_Error* hlo_test_axpy(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_attrs(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_any_sum(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_fail(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_two_results(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_dict_struct(XLA_FFI_CallFrame*);
XLA_FFI_Error* hlo_test_combine(XLA_FFI_CallFrame*);
}

struct XLA_FFI_Error {
  XLA_FFI_Error_Code code;
  std::string message;
};

namespace {

XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* a) {
  return new XLA_FFI_Error{a->errc, a->message};
}
void ErrorGetMessage(XLA_FFI_Error_GetMessage_Args* a) { a->message = a->error->message.c_str(); }
void ErrorDestroy(XLA_FFI_Error_Destroy_Args* a) { delete a->error; }
XLA_FFI_Error* Schedule(XLA_FFI_ThreadPool_Schedule_Args* a) {
  a->task(a->data);
  return nullptr;
}

XLA_FFI_Api MakeApi(int major, int minor) {
  XLA_FFI_Api api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = XLA_FFI_Api_STRUCT_SIZE;
  api.api_version = {XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, major, minor};
  api.XLA_FFI_Error_Create = ErrorCreate;
  api.XLA_FFI_Error_GetMessage = ErrorGetMessage;
  api.XLA_FFI_Error_Destroy = ErrorDestroy;
  api.XLA_FFI_ThreadPool_Schedule = Schedule;
  return api;
}
const XLA_FFI_Api kApi = MakeApi(XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR);

// A buffer with its own dims.
struct Buf {
  std::vector<int64_t> dims;
  XLA_FFI_Buffer b;
  Buf(XLA_FFI_DataType dtype, void* data, std::vector<int64_t> d) : dims(std::move(d)) {
    b = {XLA_FFI_Buffer_STRUCT_SIZE,        nullptr,    dtype, data,
         static_cast<int64_t>(dims.size()), dims.data()};
  }
  Buf(const Buf&) = delete;
};

// One attribute: a name and what it points to (owned by the test).
struct Attr {
  std::string name;
  XLA_FFI_AttrType type;
  void* value;
};

// Attributes sorted by name, as the runtime passes them.
struct Attrs {
  std::vector<XLA_FFI_ByteSpan> names;
  std::vector<XLA_FFI_ByteSpan*> name_ptrs;
  std::vector<XLA_FFI_AttrType> types;
  std::vector<void*> values;
  XLA_FFI_Attrs a;
  explicit Attrs(std::vector<Attr> list) {
    std::sort(list.begin(), list.end(),
              [](const Attr& x, const Attr& y) { return x.name < y.name; });
    store = std::move(list);
    for (Attr& at : store) {
      names.push_back({at.name.data(), at.name.size()});
      types.push_back(at.type);
      values.push_back(at.value);
    }
    for (XLA_FFI_ByteSpan& n : names) name_ptrs.push_back(&n);
    a = {XLA_FFI_Attrs_STRUCT_SIZE, nullptr,      static_cast<int64_t>(store.size()), types.data(),
         name_ptrs.data(),          values.data()};
  }
  Attrs(const Attrs&) = delete;
  std::vector<Attr> store;
};

struct Frame {
  std::vector<XLA_FFI_ArgType> arg_types;
  std::vector<void*> args;
  std::vector<XLA_FFI_RetType> ret_types;
  std::vector<void*> rets;
  XLA_FFI_CallFrame f;
  Frame(std::vector<Buf*> in, std::vector<Buf*> out, const Attrs* attrs,
        const XLA_FFI_Api* api = &kApi) {
    for (Buf* b : in) {
      arg_types.push_back(XLA_FFI_ArgType_BUFFER);
      args.push_back(&b->b);
    }
    for (Buf* b : out) {
      ret_types.push_back(XLA_FFI_RetType_BUFFER);
      rets.push_back(&b->b);
    }
    std::memset(&f, 0, sizeof f);
    f.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
    f.api = api;
    f.stage = XLA_FFI_ExecutionStage_EXECUTE;
    f.args = {XLA_FFI_Args_STRUCT_SIZE, nullptr, static_cast<int64_t>(args.size()),
              arg_types.data(), args.data()};
    f.rets = {XLA_FFI_Rets_STRUCT_SIZE, nullptr, static_cast<int64_t>(rets.size()),
              ret_types.data(), rets.data()};
    if (attrs)
      f.attrs = attrs->a;
    else
      f.attrs = {XLA_FFI_Attrs_STRUCT_SIZE, nullptr, 0, nullptr, nullptr, nullptr};
  }
  Frame(const Frame&) = delete;
};

int failures = 0;

void Check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL: %s %s\n", what, detail.c_str());
}

// The call succeeds (prints the error if not).
void ExpectOk(XLA_FFI_Error* e, const char* what) {
  Check(e == nullptr, what, e ? "error: " + e->message : "");
  delete e;
}

// The call fails with `code` and a message containing `part`.
void ExpectError(XLA_FFI_Error* e, XLA_FFI_Error_Code code, const char* part, const char* what) {
  if (!e) {
    Check(false, what, "succeeded; expected an error");
    return;
  }
  Check(e->code == code, what, "code " + std::to_string(e->code) + ": " + e->message);
  Check(e->message.find(part) != std::string::npos, what,
        "message lacks \"" + std::string(part) + "\": " + e->message);
  delete e;
}

template <typename T>
void ExpectValues(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  bool same = got.size() == want.size();
  for (size_t i = 0; same && i < got.size(); ++i) same = got[i] == want[i];
  std::string detail;
  for (size_t i = 0; i < got.size(); ++i) detail += std::to_string(got[i]) + " ";
  Check(same, what, "got " + detail);
}

template <typename T>
XLA_FFI_Scalar Scalar(XLA_FFI_DataType dtype, T* v) {
  return {dtype, v};
}

void TestAxpy() {
  std::vector<float> x = {1, 2, 3}, y = {10, 20, 30}, out(3, -1);
  Buf bx(XLA_FFI_DataType_F32, x.data(), {3}), by(XLA_FFI_DataType_F32, y.data(), {3}),
      bo(XLA_FFI_DataType_F32, out.data(), {3});
  float alpha = 2;
  XLA_FFI_Scalar s_alpha = Scalar(XLA_FFI_DataType_F32, &alpha);
  Attrs attrs({{"alpha", XLA_FFI_AttrType_SCALAR, &s_alpha}});
  {
    Frame f({&bx, &by}, {&bo}, &attrs);
    ExpectOk(hlo_test_axpy(&f.f), "axpy");
    ExpectValues(out, {12.f, 24.f, 36.f}, "axpy: y + 2x");  // 10+2, 20+4, 30+6
  }
  {  // the metadata query: version and traits filled, nothing computed
    out.assign(3, -1);
    Frame f({&bx, &by}, {&bo}, &attrs);
    XLA_FFI_Metadata md;
    std::memset(&md, 0, sizeof md);
    md.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
    md.traits = 77;
    XLA_FFI_Metadata_Extension ext = {
        {XLA_FFI_Metadata_Extension_STRUCT_SIZE, XLA_FFI_Extension_Metadata, nullptr}, &md};
    f.f.extension_start = &ext.extension_base;
    f.f.stage = XLA_FFI_ExecutionStage_INSTANTIATE;  // the query runs whatever the stage
    ExpectOk(hlo_test_axpy(&f.f), "axpy metadata");
    Check(md.api_version.major_version == 0 && md.api_version.minor_version == 1,
          "metadata: API version 0.1");
    Check(md.api_version.struct_size == XLA_FFI_Api_Version_STRUCT_SIZE, "metadata: version size");
    Check(md.traits == 0, "metadata: no traits");
    ExpectValues(out, {-1.f, -1.f, -1.f}, "metadata query must not run the handler");
  }
  {
    Frame f({&bx, &by}, {&bo}, &attrs);
    f.f.struct_size -= 8;
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Unexpected XLA_FFI_CallFrame size", "axpy: frame size");
  }
  {
    XLA_FFI_Api api02 = MakeApi(0, 2), api11 = MakeApi(1, 1);
    Frame f({&bx, &by}, {&bo}, &attrs, &api02);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_FAILED_PRECONDITION,
                "built for 0.1, the runtime provides 0.2", "axpy: minor version");
    f.f.api = &api11;
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_FAILED_PRECONDITION,
                "the runtime provides 1.1", "axpy: major version");
  }
  {
    Frame f({&bx, &by}, {&bo}, &attrs);
    f.f.stage = XLA_FFI_ExecutionStage_PREPARE;
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong execution stage: expected execute but got prepare", "axpy: stage");
  }
  {
    Frame f({&bx}, {&bo}, &attrs);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong number of arguments: expected 2 but got 1", "axpy: arg count");
  }
  {
    Frame f({&bx, &by}, {}, &attrs);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong number of results: expected 1 but got 0", "axpy: ret count");
  }
  {
    Frame f({&bx, &by}, {&bo}, nullptr);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong number of attributes: expected 1 but got 0", "axpy: attr count");
  }
  {
    Attrs beta({{"beta", XLA_FFI_AttrType_SCALAR, &s_alpha}});
    Frame f({&bx, &by}, {&bo}, &beta);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "no attribute 'alpha' (it has: beta)", "axpy: attr name");
  }
  {
    double alpha64 = 2;
    XLA_FFI_Scalar s64 = Scalar(XLA_FFI_DataType_F64, &alpha64);
    Attrs wrong({{"alpha", XLA_FFI_AttrType_SCALAR, &s64}});
    Frame f({&bx, &by}, {&bo}, &wrong);
    ExpectError(hlo_test_axpy(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong scalar data type: expected F32 but got F64", "axpy: attr dtype");
    XLA_FFI_ByteSpan str = {"2", 1};
    Attrs wrong2({{"alpha", XLA_FFI_AttrType_STRING, &str}});
    Frame f2({&bx, &by}, {&bo}, &wrong2);
    ExpectError(hlo_test_axpy(&f2.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong attribute type: expected scalar but got string", "axpy: attr kind");
  }
  {
    std::vector<int32_t> xi = {1, 2, 3};
    Buf bxi(XLA_FFI_DataType_S32, xi.data(), {3});
    Frame f({&bxi, &by}, {&bo}, &attrs);
    XLA_FFI_Error* e = hlo_test_axpy(&f.f);
    Check(e && e->message.find("bad operands at: 1)") != std::string::npos, "axpy: bad position",
          e ? e->message : "no error");
    ExpectError(e, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong buffer dtype: expected F32 but got S32", "axpy: buffer dtype");
  }
}

void TestAttrs() {
  int8_t a = -3;
  int16_t b = 300;
  int32_t c = -70000;
  int64_t d = 5000000000;
  uint8_t e = 250;
  uint16_t f16 = 65000;
  uint32_t g = 4000000000u;
  uint64_t h = 9000000000u;
  float i = 2.5f;
  double j = -0.125;
  bool k = true;
  XLA_FFI_Scalar sa = Scalar(XLA_FFI_DataType_S8, &a), sb = Scalar(XLA_FFI_DataType_S16, &b),
                 sc = Scalar(XLA_FFI_DataType_S32, &c), sd = Scalar(XLA_FFI_DataType_S64, &d),
                 se = Scalar(XLA_FFI_DataType_U8, &e), sf = Scalar(XLA_FFI_DataType_U16, &f16),
                 sg = Scalar(XLA_FFI_DataType_U32, &g), sh = Scalar(XLA_FFI_DataType_U64, &h),
                 si = Scalar(XLA_FFI_DataType_F32, &i), sj = Scalar(XLA_FFI_DataType_F64, &j),
                 sk = Scalar(XLA_FFI_DataType_PRED, &k);
  XLA_FFI_ByteSpan l = {"ab", 2};
  int64_t m[] = {4, 5, 6};
  float n[] = {0.5f, -1.0f};
  XLA_FFI_Array am = {XLA_FFI_DataType_S64, 3, m}, an = {XLA_FFI_DataType_F32, 2, n};
  int32_t p = 7;
  XLA_FFI_Scalar sp = Scalar(XLA_FFI_DataType_S32, &p);
  XLA_FFI_ByteSpan q = {"xyz", 3};
  Attrs dict({{"p", XLA_FFI_AttrType_SCALAR, &sp}, {"q", XLA_FFI_AttrType_STRING, &q}});
  std::vector<Attr> list = {
      {"a_i8", XLA_FFI_AttrType_SCALAR, &sa},
      {"b_i16", XLA_FFI_AttrType_SCALAR, &sb},
      {"c_i32", XLA_FFI_AttrType_SCALAR, &sc},
      {"d_i64", XLA_FFI_AttrType_SCALAR, &sd},
      {"e_u8", XLA_FFI_AttrType_SCALAR, &se},
      {"f_u16", XLA_FFI_AttrType_SCALAR, &sf},
      {"g_u32", XLA_FFI_AttrType_SCALAR, &sg},
      {"h_u64", XLA_FFI_AttrType_SCALAR, &sh},
      {"i_f32", XLA_FFI_AttrType_SCALAR, &si},
      {"j_f64", XLA_FFI_AttrType_SCALAR, &sj},
      {"k_bool", XLA_FFI_AttrType_SCALAR, &sk},
      {"l_str", XLA_FFI_AttrType_STRING, &l},
      {"m_arr_i64", XLA_FFI_AttrType_ARRAY, &am},
      {"n_arr_f32", XLA_FFI_AttrType_ARRAY, &an},
      {"o_dict", XLA_FFI_AttrType_DICTIONARY, const_cast<XLA_FFI_Attrs*>(&dict.a)}};
  std::vector<double> out(15, -1);
  Buf bo(XLA_FFI_DataType_F64, out.data(), {15});
  {
    Attrs attrs(list);
    Frame fr({}, {&bo}, &attrs);
    ExpectOk(hlo_test_attrs(&fr.f), "attrs");
    // l: 1000*2 + 'a'(97) + 'b'(98) = 2195; m: 1*4 + 2*5 + 3*6 = 32;
    // n: 1*0.5 + 2*(-1) = -1.5; o: 100*7 + 3 = 703.
    ExpectValues(out,
                 {-3., 300., -70000., 5000000000., 250., 65000., 4000000000., 9000000000., 2.5,
                  -0.125, 1., 2195., 32., -1.5, 703.},
                 "attrs: values");
  }
  {  // an i32 where the handler binds i8
    std::vector<Attr> wrong = list;
    wrong[0].value = &sc;
    Attrs attrs(wrong);
    Frame fr({}, {&bo}, &attrs);
    ExpectError(hlo_test_attrs(&fr.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong scalar data type: expected S8 but got S32", "attrs: i8 dtype");
  }
  {  // an f32 array where the handler binds array<i64>
    std::vector<Attr> wrong = list;
    wrong[12].value = &an;
    Attrs attrs(wrong);
    Frame fr({}, {&bo}, &attrs);
    ExpectError(hlo_test_attrs(&fr.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong array data type: expected S64 but got F32", "attrs: array dtype");
  }
  {  // the nested dictionary lacks q: the handler's Dictionary::get fails
    Attrs small({{"p", XLA_FFI_AttrType_SCALAR, &sp}});
    std::vector<Attr> wrong = list;
    wrong[14].value = const_cast<XLA_FFI_Attrs*>(&small.a);
    Attrs attrs(wrong);
    Frame fr({}, {&bo}, &attrs);
    ExpectError(hlo_test_attrs(&fr.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Unexpected attribute: q", "attrs: dictionary get");
  }
  {  // rank-1 result bound: an f64[3,5] result is refused
    Buf b2(XLA_FFI_DataType_F64, out.data(), {3, 5});
    Attrs attrs(list);
    Frame fr({}, {&b2}, &attrs);
    ExpectError(hlo_test_attrs(&fr.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "Wrong buffer rank: expected 1 but got 2", "attrs: result rank");
  }
}

void TestAnySum() {
  double out = -1;
  Buf bo(XLA_FFI_DataType_F64, &out, {});
  std::vector<float> xf = {1.5f, 2.5f, -1.0f, 4.0f};  // 7
  std::vector<double> xd = {0.25, 0.5};               // 0.75
  std::vector<int32_t> xi = {-5, 10, 20};             // 25
  std::vector<uint8_t> xu = {1};
  Buf bf(XLA_FFI_DataType_F32, xf.data(), {2, 2}), bd(XLA_FFI_DataType_F64, xd.data(), {2}),
      bi(XLA_FFI_DataType_S32, xi.data(), {3}), bu(XLA_FFI_DataType_U8, xu.data(), {1});
  Frame f1({&bf}, {&bo}, nullptr);
  ExpectOk(hlo_test_any_sum(&f1.f), "any_sum f32");
  Check(out == 7.0, "any_sum f32 value", std::to_string(out));
  Frame f2({&bd}, {&bo}, nullptr);
  ExpectOk(hlo_test_any_sum(&f2.f), "any_sum f64");
  Check(out == 0.75, "any_sum f64 value", std::to_string(out));
  Frame f3({&bi}, {&bo}, nullptr);
  ExpectOk(hlo_test_any_sum(&f3.f), "any_sum s32");
  Check(out == 25.0, "any_sum s32 value", std::to_string(out));
  Frame f4({&bu}, {&bo}, nullptr);
  ExpectError(hlo_test_any_sum(&f4.f), XLA_FFI_Error_Code_UNIMPLEMENTED, "must be f32, f64 or s32",
              "any_sum u8");
  Buf bo1(XLA_FFI_DataType_F64, &out, {1});
  Frame f5({&bf}, {&bo1}, nullptr);
  ExpectError(hlo_test_any_sum(&f5.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "Wrong buffer rank: expected 0 but got 1", "any_sum: f64[1] result");
}

void TestFailAndTwoResults() {
  std::vector<float> x = {1, -2}, out(2, 0), out2(2, 0);
  Buf bx(XLA_FFI_DataType_F32, x.data(), {2}), bo(XLA_FFI_DataType_F32, out.data(), {2}),
      bo2(XLA_FFI_DataType_F32, out2.data(), {2});
  bool yes = true, no = false;
  XLA_FFI_Scalar sy = Scalar(XLA_FFI_DataType_PRED, &yes), sn = Scalar(XLA_FFI_DataType_PRED, &no);
  Attrs fail({{"fail", XLA_FFI_AttrType_SCALAR, &sy}}),
      pass({{"fail", XLA_FFI_AttrType_SCALAR, &sn}});
  Frame f1({&bx}, {&bo}, &fail);
  ExpectError(hlo_test_fail(&f1.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "hlo_test_fail: failing as asked", "fail: true");
  Frame f2({&bx}, {&bo}, &pass);
  ExpectOk(hlo_test_fail(&f2.f), "fail: false");
  ExpectValues(out, {1.f, -2.f}, "fail: copy");

  Frame f3({&bx}, {&bo, &bo2}, nullptr);
  ExpectOk(hlo_test_two_results(&f3.f), "two_results");
  ExpectValues(out, {2.f, -4.f}, "two_results: 2x");
  ExpectValues(out2, {2.f, -1.f}, "two_results: x+1");
}

void TestDictStruct() {
  std::vector<float> x = {1, 2, 3, 4}, out(4, 0);
  Buf bx(XLA_FFI_DataType_F32, x.data(), {4}), bo(XLA_FFI_DataType_F32, out.data(), {4});
  int64_t lo = 1, hi = 3;
  float scale = 10;
  int32_t lo32 = 1;
  XLA_FFI_Scalar slo = Scalar(XLA_FFI_DataType_S64, &lo), shi = Scalar(XLA_FFI_DataType_S64, &hi),
                 ssc = Scalar(XLA_FFI_DataType_F32, &scale),
                 slo32 = Scalar(XLA_FFI_DataType_S32, &lo32);
  {
    Attrs attrs({{"scale", XLA_FFI_AttrType_SCALAR, &ssc},
                 {"lo", XLA_FFI_AttrType_SCALAR, &slo},
                 {"hi", XLA_FFI_AttrType_SCALAR, &shi}});
    Frame f({&bx}, {&bo}, &attrs);
    ExpectOk(hlo_test_dict_struct(&f.f), "dict_struct");
    ExpectValues(out, {1.f, 20.f, 30.f, 4.f}, "dict_struct: x[1:3] * 10");
  }
  {
    Attrs attrs({{"lo", XLA_FFI_AttrType_SCALAR, &slo}, {"hi", XLA_FFI_AttrType_SCALAR, &shi}});
    Frame f({&bx}, {&bo}, &attrs);
    ExpectError(hlo_test_dict_struct(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "expected 3 attributes but got 2", "dict_struct: missing member");
  }
  {
    Attrs attrs({{"scale", XLA_FFI_AttrType_SCALAR, &ssc},
                 {"lo", XLA_FFI_AttrType_SCALAR, &slo32},
                 {"hi", XLA_FFI_AttrType_SCALAR, &shi}});
    Frame f({&bx}, {&bo}, &attrs);
    ExpectError(hlo_test_dict_struct(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "in attribute 'lo'", "dict_struct: member dtype");
  }
}

void TestCombine() {
  std::vector<float> a = {1, 5}, b = {4, 2}, c = {-1, 3}, out(2, 0);
  Buf ba(XLA_FFI_DataType_F32, a.data(), {2}), bb(XLA_FFI_DataType_F32, b.data(), {2}),
      bc(XLA_FFI_DataType_F32, c.data(), {2}), bo(XLA_FFI_DataType_F32, out.data(), {2});
  int32_t sum = 0, max = 1, bad = 2;
  XLA_FFI_Scalar ss = Scalar(XLA_FFI_DataType_S32, &sum), sm = Scalar(XLA_FFI_DataType_S32, &max),
                 sbad = Scalar(XLA_FFI_DataType_S32, &bad);
  Attrs asum({{"mode", XLA_FFI_AttrType_SCALAR, &ss}}),
      amax({{"mode", XLA_FFI_AttrType_SCALAR, &sm}}),
      abad({{"mode", XLA_FFI_AttrType_SCALAR, &sbad}});
  Frame f1({&ba, &bb, &bc}, {&bo}, &asum);
  ExpectOk(hlo_test_combine(&f1.f), "combine sum");
  ExpectValues(out, {4.f, 10.f}, "combine: sum");  // 1+4-1, 5+2+3
  Frame f2({&ba, &bb, &bc}, {&bo}, &amax);
  ExpectOk(hlo_test_combine(&f2.f), "combine max");
  ExpectValues(out, {4.f, 5.f}, "combine: max");
  Frame f3({&ba}, {&bo}, &abad);
  ExpectError(hlo_test_combine(&f3.f), XLA_FFI_Error_Code_INVALID_ARGUMENT, "mode must be 0",
              "combine: bad mode");
  Frame f4({&ba}, {}, &asum);
  ExpectError(hlo_test_combine(&f4.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "Wrong number of results: expected 1 but got 0", "combine: no result");
  Buf bi(XLA_FFI_DataType_S32, &sum, {2});
  Frame f5({&ba, &bi}, {&bo}, &asum);
  ExpectError(hlo_test_combine(&f5.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "Wrong buffer dtype: expected F32 but got S32", "combine: remaining arg dtype");
}

// Handlers defined here: the non-exported macro, a stage and traits given
// to it, a comma inside the binding, and an exception from ErrorOr.
ffi::Error Scale2d(ffi::Buffer<ffi::F32, 2> x, ffi::ResultBuffer<ffi::F32, 2> out) {
  for (size_t i = 0; i < x.element_count(); ++i) out->typed_data()[i] = 3 * x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER(
    kScale2dInstantiate, Scale2d,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32, 2>>().Ret<ffi::Buffer<ffi::F32, 2>>(),
    ffi::ExecutionStage::kInstantiate, ffi::Traits::kCmdBufferCompatible);
XLA_FFI_DEFINE_HANDLER(kScale2dPrepare, Scale2d,
                       ffi::Ffi::Bind<ffi::ExecutionStage::kPrepare>()
                           .Arg<ffi::Buffer<ffi::F32, 2>>()
                           .Ret<ffi::Buffer<ffi::F32, 2>>());

ffi::Error Throws(ffi::Dictionary attrs) {
  // get() of a missing name is an error; value() of it throws.
  return attrs.get<int32_t>("missing").value() == 0 ? ffi::Error::Success()
                                                    : ffi::Error::Internal("unreachable");
}
XLA_FFI_DEFINE_HANDLER(kThrows, Throws, ffi::Ffi::Bind().Attrs());

void TestMacros() {
  std::vector<float> x = {1, 2, 3, 4}, out(4, 0);
  Buf bx(XLA_FFI_DataType_F32, x.data(), {2, 2}), bo(XLA_FFI_DataType_F32, out.data(), {2, 2});
  Frame f({&bx}, {&bo}, nullptr);
  f.f.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  ExpectOk(kScale2dInstantiate(&f.f), "stage argument: instantiate");
  ExpectValues(out, {3.f, 6.f, 9.f, 12.f}, "scale2d");
  ExpectError(kScale2dPrepare(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "expected prepare but got instantiate", "Bind<kPrepare>: stage");
  f.f.stage = XLA_FFI_ExecutionStage_PREPARE;
  ExpectOk(kScale2dPrepare(&f.f), "Bind<kPrepare>");

  XLA_FFI_Metadata md;
  std::memset(&md, 0, sizeof md);
  md.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
  XLA_FFI_Metadata_Extension ext = {
      {XLA_FFI_Metadata_Extension_STRUCT_SIZE, XLA_FFI_Extension_Metadata, nullptr}, &md};
  f.f.extension_start = &ext.extension_base;
  ExpectOk(kScale2dInstantiate(&f.f), "metadata with traits");
  Check(md.traits == XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE, "metadata: traits",
        std::to_string(md.traits));
  md.struct_size = 4;
  ExpectError(kScale2dInstantiate(&f.f), XLA_FFI_Error_Code_INVALID_ARGUMENT,
              "Unexpected XLA_FFI_Metadata size", "metadata size");

  Frame g({}, {}, nullptr);
  ExpectError(kThrows(&g.f), XLA_FFI_Error_Code_INTERNAL, "threw an exception", "exception");
}

}  // namespace

int main() {
  TestMacros();
  TestAxpy();
  TestAttrs();
  TestAnySum();
  TestFailAndTwoResults();
  TestDictStruct();
  TestCombine();
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("ffi header self-test: all checks passed\n");
  return 0;
}
