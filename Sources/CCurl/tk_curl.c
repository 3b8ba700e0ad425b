#include "tk_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The libcurl functions tk-agent uses, resolved from the library at first use. */
struct tk_curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

static struct tk_curl_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

/* The sonames of libcurl 7.x/8.x: the OpenSSL build (libcurl4), then the GnuTLS one. */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static int resolve(void *lib, struct tk_curl_api *out, const char *name, char *error, size_t size) {
#define TK_SYM(field, symbol)                                                               \
    do {                                                                                    \
        *(void **)(&out->field) = dlsym(lib, symbol);                                       \
        if (!out->field) {                                                                  \
            snprintf(error, size, "%s has no %s (libcurl 7.68 or newer is needed)", name, symbol); \
            return 0;                                                                       \
        }                                                                                   \
    } while (0)
    TK_SYM(global_init, "curl_global_init");
    TK_SYM(easy_init, "curl_easy_init");
    TK_SYM(easy_cleanup, "curl_easy_cleanup");
    TK_SYM(easy_strerror, "curl_easy_strerror");
    TK_SYM(easy_setopt, "curl_easy_setopt");
    TK_SYM(easy_getinfo, "curl_easy_getinfo");
    TK_SYM(multi_init, "curl_multi_init");
    TK_SYM(multi_add_handle, "curl_multi_add_handle");
    TK_SYM(multi_remove_handle, "curl_multi_remove_handle");
    TK_SYM(multi_perform, "curl_multi_perform");
    TK_SYM(multi_poll, "curl_multi_poll");
    TK_SYM(multi_wakeup, "curl_multi_wakeup");
    TK_SYM(multi_info_read, "curl_multi_info_read");
    TK_SYM(slist_append, "curl_slist_append");
    TK_SYM(slist_free_all, "curl_slist_free_all");
#undef TK_SYM
    return 1;
}

int tk_curl_load_named(const char *name, char *error, size_t size) {
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(error, size, "%s", why ? why : name);
        return 0;
    }
    struct tk_curl_api probe;
    if (!resolve(lib, &probe, name, error, size)) { dlclose(lib); return 0; }
    dlclose(lib);
    return 1;
}

static void load_once(void) {
    load_error[0] = 0;
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
        void *lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            if (i == 0) {
                const char *why = dlerror();
                snprintf(load_error, sizeof load_error, "%s", why ? why : sonames[i]);
            }
            continue;
        }
        /* Kept open for the life of the process: the client thread uses it until exit. */
        if (resolve(lib, &api, sonames[i], load_error, sizeof load_error)) { loaded = 1; return; }
        memset(&api, 0, sizeof api);
        dlclose(lib);
    }
}

int tk_curl_load(char *error, size_t size) {
    pthread_once(&once, load_once);
    if (!loaded && error && size > 0) snprintf(error, size, "%s", load_error);
    return loaded;
}

CURLcode tk_curl_global_init(long flags) { return api.global_init ? api.global_init(flags) : CURLE_FAILED_INIT; }
CURL *tk_curl_easy_init(void) { return api.easy_init ? api.easy_init() : NULL; }
void tk_curl_easy_cleanup(CURL *h) { if (api.easy_cleanup) api.easy_cleanup(h); }
const char *tk_curl_easy_strerror(CURLcode code) { return api.easy_strerror ? api.easy_strerror(code) : "libcurl is not loaded"; }
CURLM *tk_curl_multi_init(void) { return api.multi_init ? api.multi_init() : NULL; }
CURLMcode tk_curl_multi_add_handle(CURLM *m, CURL *h) { return api.multi_add_handle ? api.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR; }
CURLMcode tk_curl_multi_remove_handle(CURLM *m, CURL *h) { return api.multi_remove_handle ? api.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR; }
CURLMcode tk_curl_multi_perform(CURLM *m, int *running) { return api.multi_perform ? api.multi_perform(m, running) : CURLM_INTERNAL_ERROR; }
CURLMcode tk_curl_multi_poll(CURLM *m, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *numfds) {
    return api.multi_poll ? api.multi_poll(m, extra, count, timeout_ms, numfds) : CURLM_INTERNAL_ERROR;
}
CURLMcode tk_curl_multi_wakeup(CURLM *m) { return api.multi_wakeup ? api.multi_wakeup(m) : CURLM_INTERNAL_ERROR; }
CURLMsg *tk_curl_multi_info_read(CURLM *m, int *left) { return api.multi_info_read ? api.multi_info_read(m, left) : NULL; }
struct curl_slist *tk_curl_slist_append(struct curl_slist *list, const char *value) {
    return api.slist_append ? api.slist_append(list, value) : list;
}
void tk_curl_slist_free_all(struct curl_slist *list) { if (api.slist_free_all) api.slist_free_all(list); }

CURLcode tk_curl_set_long(CURL *h, CURLoption o, long v) { return api.easy_setopt ? api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode tk_curl_set_off(CURL *h, CURLoption o, curl_off_t v) { return api.easy_setopt ? api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode tk_curl_set_ptr(CURL *h, CURLoption o, void *v) { return api.easy_setopt ? api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode tk_curl_set_str(CURL *h, CURLoption o, const char *v) { return api.easy_setopt ? api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode tk_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return api.easy_setopt ? api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode tk_curl_set_data_cb(CURL *h, CURLoption o, tk_curl_data_cb cb) { return api.easy_setopt ? api.easy_setopt(h, o, cb) : CURLE_FAILED_INIT; }

long tk_curl_response_code(CURL *h) {
    long code = 0;
    if (api.easy_getinfo) api.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
void *tk_curl_private(CURL *h) {
    char *p = 0;
    if (api.easy_getinfo) api.easy_getinfo(h, CURLINFO_PRIVATE, &p);
    return p;
}
CURLcode tk_curl_msg_result(CURLMsg *m) { return m->data.result; }
