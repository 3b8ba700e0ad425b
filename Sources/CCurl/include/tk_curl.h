#ifndef TK_CURL_H
#define TK_CURL_H
/* libcurl (libcurl4-openssl-dev): the HTTP client of the providers and embeddings, driven by its
 * multi interface on one thread that sleeps in curl_multi_poll.
 *
 * libcurl is loaded on first use (dlopen), not linked: with its two dozen dependencies (TLS,
 * Kerberos, LDAP, SSH…) it made every process start about 10 ms slower, and most commands (check,
 * search, status, the language server) never make a request. Swift calls these tk_curl_ functions
 * only; curl.h supplies the types and constants. curl_easy_setopt and curl_easy_getinfo are
 * variadic, which Swift cannot call: the typed wrappers can. */
#include <stddef.h>
#include <curl/curl.h>

/* Loads libcurl once (thread-safe; later calls return the first result). Returns 1 when every
 * function was found; else 0, with the reason in `error` (NUL-terminated, at most `size` bytes). */
int tk_curl_load(char *error, size_t size);

/* The same from a named library (tests give a name that does not exist). Not cached. */
int tk_curl_load_named(const char *name, char *error, size_t size);

CURLcode tk_curl_global_init(long flags);
CURL *tk_curl_easy_init(void);
void tk_curl_easy_cleanup(CURL *h);
const char *tk_curl_easy_strerror(CURLcode code);
CURLM *tk_curl_multi_init(void);
CURLMcode tk_curl_multi_add_handle(CURLM *m, CURL *h);
CURLMcode tk_curl_multi_remove_handle(CURLM *m, CURL *h);
CURLMcode tk_curl_multi_perform(CURLM *m, int *running);
CURLMcode tk_curl_multi_poll(CURLM *m, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *numfds);
CURLMcode tk_curl_multi_wakeup(CURLM *m);
CURLMsg *tk_curl_multi_info_read(CURLM *m, int *left);
struct curl_slist *tk_curl_slist_append(struct curl_slist *list, const char *value);
void tk_curl_slist_free_all(struct curl_slist *list);

CURLcode tk_curl_set_long(CURL *h, CURLoption o, long v);
CURLcode tk_curl_set_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode tk_curl_set_ptr(CURL *h, CURLoption o, void *v);
CURLcode tk_curl_set_str(CURL *h, CURLoption o, const char *v);
CURLcode tk_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v);

typedef size_t (*tk_curl_data_cb)(char *data, size_t size, size_t count, void *user);
CURLcode tk_curl_set_data_cb(CURL *h, CURLoption o, tk_curl_data_cb cb);

long tk_curl_response_code(CURL *h);
void *tk_curl_private(CURL *h);
/* The result of a finished transfer (msg->data is a union). */
CURLcode tk_curl_msg_result(CURLMsg *m);
#endif
