#ifndef TK_CCURL_SHIM_H
#define TK_CCURL_SHIM_H
/* libcurl (libcurl4-openssl-dev): the HTTP client of the providers and embeddings, driven by its
 * multi interface on one thread that sleeps in curl_multi_poll. curl_easy_setopt and
 * curl_easy_getinfo are variadic, which Swift cannot call: these typed wrappers can. */
#include <curl/curl.h>

static inline CURLcode tk_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tk_curl_set_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tk_curl_set_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tk_curl_set_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tk_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*tk_curl_data_cb)(char *data, size_t size, size_t count, void *user);
static inline CURLcode tk_curl_set_data_cb(CURL *h, CURLoption o, tk_curl_data_cb cb) { return curl_easy_setopt(h, o, cb); }

static inline long tk_curl_response_code(CURL *h) {
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
static inline void *tk_curl_private(CURL *h) {
    char *p = 0;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, &p);
    return p;
}
/* The easy handle and result of a finished transfer (msg->data is a union). */
static inline CURLcode tk_curl_msg_result(CURLMsg *m) { return m->data.result; }
#endif
