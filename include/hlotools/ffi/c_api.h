/* The C ABI of XLA's foreign function interface (FFI), version 0.1, as
 * hlotools implements it for custom calls of
 * api_version=API_VERSION_TYPED_FFI.
 *
 * Written for hlotools from the ABI's facts (struct layouts, enum values,
 * the order of the function table); a handler library built against XLA's
 * own xla/ffi/api/c_api.h of API version 0.1 sees the same bytes here.
 * docs/custom-calls.md explains how hlotools fills each structure.
 *
 * Conventions of the ABI:
 *   - every structure that crosses the boundary starts with its size in
 *     bytes (struct_size) and a pointer to a chain of extensions
 *     (extension_start); *_STRUCT_SIZE is the size up to the last field
 *     this version knows;
 *   - a handler returns NULL on success or an XLA_FFI_Error* made with
 *     XLA_FFI_Error_Create; the caller of the handler owns and destroys it;
 *   - strings are byte spans (pointer and length), not NUL-terminated. */
#ifndef HLOTOOLS_FFI_C_API_H
#define HLOTOOLS_FFI_C_API_H

#include <stddef.h>
#include <stdint.h>

#define XLA_FFI_STRUCT_SIZE(struct_type, last_field) \
  (offsetof(struct_type, last_field) + sizeof(((struct_type *)0)->last_field))

#define XLA_FFI_DEFINE_STRUCT_TRAITS(sname, last_field) \
  typedef struct sname sname;                           \
  enum { sname##_STRUCT_SIZE = XLA_FFI_STRUCT_SIZE(sname, last_field) }

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XLA_FFI_Api XLA_FFI_Api;
typedef struct XLA_FFI_InternalApi XLA_FFI_InternalApi; /* never provided */

/* ---- extensions --------------------------------------------------------- */

typedef enum {
  /* The call asks the handler for its metadata instead of running it. */
  XLA_FFI_Extension_Metadata = 1,
} XLA_FFI_Extension_Type;

typedef struct XLA_FFI_Extension_Base {
  size_t struct_size;
  XLA_FFI_Extension_Type type;
  struct XLA_FFI_Extension_Base *next;
} XLA_FFI_Extension_Base;

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Extension_Base, next);

/* ---- version ------------------------------------------------------------ */

/* Major: incompatible changes; minor: fields added at the end. */
#define XLA_FFI_API_MAJOR 0
#define XLA_FFI_API_MINOR 1

struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int major_version;
  int minor_version;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Api_Version, minor_version);

/* ---- errors ------------------------------------------------------------- */

typedef struct XLA_FFI_Error XLA_FFI_Error; /* opaque; owned by the caller */

/* The codes of absl::Status. */
typedef enum {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_CANCELLED = 1,
  XLA_FFI_Error_Code_UNKNOWN = 2,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_DEADLINE_EXCEEDED = 4,
  XLA_FFI_Error_Code_NOT_FOUND = 5,
  XLA_FFI_Error_Code_ALREADY_EXISTS = 6,
  XLA_FFI_Error_Code_PERMISSION_DENIED = 7,
  XLA_FFI_Error_Code_RESOURCE_EXHAUSTED = 8,
  XLA_FFI_Error_Code_FAILED_PRECONDITION = 9,
  XLA_FFI_Error_Code_ABORTED = 10,
  XLA_FFI_Error_Code_OUT_OF_RANGE = 11,
  XLA_FFI_Error_Code_UNIMPLEMENTED = 12,
  XLA_FFI_Error_Code_INTERNAL = 13,
  XLA_FFI_Error_Code_UNAVAILABLE = 14,
  XLA_FFI_Error_Code_DATA_LOSS = 15,
  XLA_FFI_Error_Code_UNAUTHENTICATED = 16
} XLA_FFI_Error_Code;

struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  const char *message; /* NUL-terminated; copied */
  XLA_FFI_Error_Code errc;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_Create_Args, errc);

typedef XLA_FFI_Error *XLA_FFI_Error_Create(XLA_FFI_Error_Create_Args *args);

struct XLA_FFI_Error_GetMessage_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Error *error;
  const char *message; /* out: valid while error lives */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_GetMessage_Args, message);

typedef void XLA_FFI_Error_GetMessage(XLA_FFI_Error_GetMessage_Args *args);

struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Error *error;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_Destroy_Args, error);

typedef void XLA_FFI_Error_Destroy(XLA_FFI_Error_Destroy_Args *args);

/* ---- element types: the numbers of xla::PrimitiveType ------------------- */

typedef enum {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_PRED = 1,
  XLA_FFI_DataType_S8 = 2,
  XLA_FFI_DataType_S16 = 3,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_U8 = 6,
  XLA_FFI_DataType_U16 = 7,
  XLA_FFI_DataType_U32 = 8,
  XLA_FFI_DataType_U64 = 9,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_C64 = 15,
  XLA_FFI_DataType_BF16 = 16,
  XLA_FFI_DataType_TOKEN = 17,
  XLA_FFI_DataType_C128 = 18,
  XLA_FFI_DataType_F8E5M2 = 19,
  XLA_FFI_DataType_F8E4M3FN = 20,
  XLA_FFI_DataType_F8E4M3B11FNUZ = 23,
  XLA_FFI_DataType_F8E5M2FNUZ = 24,
  XLA_FFI_DataType_F8E4M3FNUZ = 25,
  XLA_FFI_DataType_F8E4M3 = 28,
  XLA_FFI_DataType_F8E3M4 = 29,
} XLA_FFI_DataType;

/* ---- arguments and results ---------------------------------------------- */

/* A dense array in row-major order (XLA:CPU's default layout): hlotools
 * hands every operand and result to a handler in that order, whatever the
 * module's layout. */
struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_DataType dtype;
  void *data;
  int64_t rank;
  int64_t *dims; /* rank entries */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Buffer, dims);

typedef enum {
  XLA_FFI_ArgType_BUFFER = 1,
} XLA_FFI_ArgType;

typedef enum {
  XLA_FFI_RetType_BUFFER = 1,
} XLA_FFI_RetType;

/* ---- attributes --------------------------------------------------------- */

/* What attrs[i] of XLA_FFI_Attrs points to, by types[i]:
 *   ARRAY      -> XLA_FFI_Array
 *   DICTIONARY -> XLA_FFI_Attrs (nested, also sorted by name)
 *   SCALAR     -> XLA_FFI_Scalar
 *   STRING     -> XLA_FFI_ByteSpan */
typedef enum {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
} XLA_FFI_AttrType;

typedef struct XLA_FFI_ExecutionContext XLA_FFI_ExecutionContext; /* opaque */

typedef struct XLA_FFI_TypeId {
  int64_t type_id;
} XLA_FFI_TypeId;

typedef struct XLA_FFI_ByteSpan {
  const char *ptr;
  size_t len;
} XLA_FFI_ByteSpan;

typedef struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void *value;
} XLA_FFI_Scalar;

typedef struct XLA_FFI_Array {
  XLA_FFI_DataType dtype;
  size_t size;
  void *data;
} XLA_FFI_Array;

/* ---- futures (asynchronous handlers) ------------------------------------ */

typedef struct XLA_FFI_Future XLA_FFI_Future; /* opaque */

struct XLA_FFI_Future_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future; /* out */
};

/* (The ABI's size of this structure stops at extension_start.) */
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_Create_Args, extension_start);

typedef XLA_FFI_Error *XLA_FFI_Future_Create(XLA_FFI_Future_Create_Args *args);

struct XLA_FFI_Future_SetAvailable_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_SetAvailable_Args, future);

typedef XLA_FFI_Error *XLA_FFI_Future_SetAvailable(XLA_FFI_Future_SetAvailable_Args *args);

struct XLA_FFI_Future_SetError_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future;
  XLA_FFI_Error *error; /* ownership passes to the runtime */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_SetError_Args, error);

typedef XLA_FFI_Error *XLA_FFI_Future_SetError(XLA_FFI_Future_SetError_Args *args);

/* ---- the call frame ----------------------------------------------------- */

/* The stages of a handler's life.  hlotools runs INSTANTIATE once per call
 * site (when the bundle has it) and then, for each execution of the call,
 * PREPARE, INITIALIZE and EXECUTE in that order. */
typedef enum {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
} XLA_FFI_ExecutionStage;

struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_ArgType *types; /* size entries */
  void **args;            /* size entries, each an XLA_FFI_Buffer* */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Args, args);

struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_RetType *types; /* size entries */
  void **rets;            /* size entries, each an XLA_FFI_Buffer* */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Rets, rets);

/* Sorted by name (byte order), so a handler may binary-search them. */
struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_AttrType *types;  /* size entries */
  XLA_FFI_ByteSpan **names; /* size entries */
  void **attrs;             /* size entries; see XLA_FFI_AttrType */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Attrs, attrs);

struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  const XLA_FFI_Api *api;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  /* out: set by a handler that finishes asynchronously; hlotools waits for
   * it before the results are read. */
  XLA_FFI_Future *future;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_CallFrame, attrs);

/* ---- handlers ----------------------------------------------------------- */

typedef XLA_FFI_Error *XLA_FFI_Handler(XLA_FFI_CallFrame *call_frame);

typedef struct XLA_FFI_Handler_Bundle {
  XLA_FFI_Handler *instantiate; /* optional */
  XLA_FFI_Handler *prepare;     /* optional */
  XLA_FFI_Handler *initialize;  /* optional */
  XLA_FFI_Handler *execute;     /* required */
} XLA_FFI_Handler_Bundle;

enum XLA_FFI_Handler_TraitsBits {
  XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE = 1u << 0,
};

typedef uint32_t XLA_FFI_Handler_Traits;

struct XLA_FFI_Handler_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler_Bundle bundle;
  XLA_FFI_Handler_Traits traits;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Handler_Register_Args, traits);

typedef XLA_FFI_Error *XLA_FFI_Handler_Register(XLA_FFI_Handler_Register_Args *args);

/* ---- user types, execution context, state ------------------------------- */

struct XLA_FFI_TypeId_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId *type_id; /* out */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_TypeId_Register_Args, type_id);

typedef XLA_FFI_Error *XLA_FFI_TypeId_Register(XLA_FFI_TypeId_Register_Args *args);

struct XLA_FFI_ExecutionContext_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *data; /* out */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_ExecutionContext_Get_Args, data);

typedef XLA_FFI_Error *XLA_FFI_ExecutionContext_Get(XLA_FFI_ExecutionContext_Get_Args *args);

struct XLA_FFI_State_Set_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state;
  void (*deleter)(void *state);
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_State_Set_Args, deleter);

typedef XLA_FFI_Error *XLA_FFI_State_Set(XLA_FFI_State_Set_Args *args);

struct XLA_FFI_State_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state; /* out */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_State_Get_Args, state);

typedef XLA_FFI_Error *XLA_FFI_State_Get(XLA_FFI_State_Get_Args *args);

/* ---- device: stream, memory, thread pool -------------------------------- */

struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  void *stream; /* out */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Stream_Get_Args, stream);

typedef XLA_FFI_Error *XLA_FFI_Stream_Get(XLA_FFI_Stream_Get_Args *args);

struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  size_t size;
  size_t alignment;
  void *data; /* out */
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_DeviceMemory_Allocate_Args, data);

typedef XLA_FFI_Error *XLA_FFI_DeviceMemory_Allocate(XLA_FFI_DeviceMemory_Allocate_Args *args);

struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  size_t size;
  void *data;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_DeviceMemory_Free_Args, data);

typedef XLA_FFI_Error *XLA_FFI_DeviceMemory_Free(XLA_FFI_DeviceMemory_Free_Args *args);

typedef void XLA_FFI_Task(void *data);

struct XLA_FFI_ThreadPool_Schedule_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_Task *task;
  void *data;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_ThreadPool_Schedule_Args, data);

typedef XLA_FFI_Error *XLA_FFI_ThreadPool_Schedule(XLA_FFI_ThreadPool_Schedule_Args *args);

/* ---- metadata extension ------------------------------------------------- */

/* A call frame whose extension chain starts with XLA_FFI_Extension_Metadata
 * asks the handler to fill in its API version and traits and return. */
struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_Handler_Traits traits;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Metadata, traits);

struct XLA_FFI_Metadata_Extension {
  XLA_FFI_Extension_Base extension_base;
  XLA_FFI_Metadata *metadata;
};

XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Metadata_Extension, metadata);

/* ---- the function table ------------------------------------------------- */

/* A field holding a pointer to the function type of the same name.  C++
 * sees the type through its qualified name: an unqualified one would
 * change meaning inside the struct, which GCC rejects. */
#ifdef __cplusplus
#define XLA_FFI_API_FN(name) ::name *name
#else
#define XLA_FFI_API_FN(name) name *name
#endif

/* The order of these fields is the ABI: never reorder, only append. */
struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_InternalApi *internal_api; /* NULL in hlotools */

  XLA_FFI_API_FN(XLA_FFI_Error_Create);
  XLA_FFI_API_FN(XLA_FFI_Error_GetMessage);
  XLA_FFI_API_FN(XLA_FFI_Error_Destroy);
  XLA_FFI_API_FN(XLA_FFI_Handler_Register);
  XLA_FFI_API_FN(XLA_FFI_Stream_Get);
  XLA_FFI_API_FN(XLA_FFI_TypeId_Register);
  XLA_FFI_API_FN(XLA_FFI_ExecutionContext_Get);
  XLA_FFI_API_FN(XLA_FFI_State_Set);
  XLA_FFI_API_FN(XLA_FFI_State_Get);
  XLA_FFI_API_FN(XLA_FFI_DeviceMemory_Allocate);
  XLA_FFI_API_FN(XLA_FFI_DeviceMemory_Free);
  XLA_FFI_API_FN(XLA_FFI_ThreadPool_Schedule);
  XLA_FFI_API_FN(XLA_FFI_Future_Create);
  XLA_FFI_API_FN(XLA_FFI_Future_SetAvailable);
  XLA_FFI_API_FN(XLA_FFI_Future_SetError);
};

/* (The ABI's size of the table stops at XLA_FFI_Stream_Get: the fields
 * after it were added later and are found through api_version.) */
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Api, XLA_FFI_Stream_Get);

#ifdef __cplusplus
}
#endif

#endif
