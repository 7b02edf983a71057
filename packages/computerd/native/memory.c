/*
 * memory.node: hands freed heap memory back to the kernel. glibc's free()
 * only shrinks the brk heap from its top; pages freed below a live chunk
 * stay resident until malloc_trim(0), which also releases whole free pages
 * in the middle of every arena (madvise(MADV_DONTNEED)). Node has no call
 * for it, so computerd's idle reclaim (src/memory/reclaimer.ts) uses this.
 */
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* trim(): true when memory was released; false when none was, or off glibc. */
static napi_value js_trim(napi_env env, napi_callback_info info) {
  int released = 0;
#ifdef __GLIBC__
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"trim", NULL, js_trim, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
