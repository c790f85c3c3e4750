#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

// libcurl is loaded when the first webhook sink or URL check needs it, not when the notifier
// starts: its TLS, HTTP/2, Kerberos and LDAP libraries are a quarter of the notifier's
// resident memory, and most notifiers never send a webhook. Swift keeps one `locus_curl_api`
// filled by `locus_curl_load`; every call goes through these typed wrappers (curl_easy_setopt
// and curl_easy_getinfo are variadic C functions, which Swift cannot call).
typedef struct {
    void *library;
    void *global_init, *easy_init, *easy_setopt, *easy_perform, *easy_cleanup, *easy_getinfo, *easy_strerror;
    void *slist_append, *slist_free_all, *url, *url_cleanup, *url_set, *url_get, *url_strerror, *free;
} locus_curl_api;

// Returns NULL when loaded, else dlerror()'s text.
static inline const char *locus_curl_load(locus_curl_api *api) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    const char *names[] = {"curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform",
                           "curl_easy_cleanup", "curl_easy_getinfo", "curl_easy_strerror", "curl_slist_append",
                           "curl_slist_free_all", "curl_url", "curl_url_cleanup", "curl_url_set", "curl_url_get",
                           "curl_url_strerror", "curl_free"};
    void **slots[] = {&api->global_init, &api->easy_init, &api->easy_setopt, &api->easy_perform, &api->easy_cleanup,
                      &api->easy_getinfo, &api->easy_strerror, &api->slist_append, &api->slist_free_all, &api->url,
                      &api->url_cleanup, &api->url_set, &api->url_get, &api->url_strerror, &api->free};
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]); index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index] == NULL) {
            const char *problem = dlerror();
            dlclose(library);
            return problem;
        }
    }
    api->library = library;
    return NULL;
}

static inline CURLcode locus_curl_global_init(const locus_curl_api *api, long flags) {
    return ((CURLcode (*)(long))api->global_init)(flags);
}
static inline CURL *locus_curl_easy_init(const locus_curl_api *api) {
    return ((CURL *(*)(void))api->easy_init)();
}
static inline CURLcode locus_curl_set_long(const locus_curl_api *api, CURL *curl, CURLoption option, long value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(curl, option, value);
}
static inline CURLcode locus_curl_set_string(const locus_curl_api *api, CURL *curl, CURLoption option, const char *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(curl, option, value);
}
static inline CURLcode locus_curl_set_pointer(const locus_curl_api *api, CURL *curl, CURLoption option, void *value) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(curl, option, value);
}
static inline CURLcode locus_curl_set_write_function(const locus_curl_api *api, CURL *curl,
                                                     size_t (*function)(char *, size_t, size_t, void *)) {
    return ((CURLcode (*)(CURL *, CURLoption, ...))api->easy_setopt)(curl, CURLOPT_WRITEFUNCTION, function);
}
static inline CURLcode locus_curl_perform(const locus_curl_api *api, CURL *curl) {
    return ((CURLcode (*)(CURL *))api->easy_perform)(curl);
}
static inline void locus_curl_cleanup(const locus_curl_api *api, CURL *curl) {
    ((void (*)(CURL *))api->easy_cleanup)(curl);
}
static inline CURLcode locus_curl_get_long(const locus_curl_api *api, CURL *curl, CURLINFO info, long *value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))api->easy_getinfo)(curl, info, value);
}
static inline CURLcode locus_curl_get_string(const locus_curl_api *api, CURL *curl, CURLINFO info, char **value) {
    return ((CURLcode (*)(CURL *, CURLINFO, ...))api->easy_getinfo)(curl, info, value);
}
static inline const char *locus_curl_strerror(const locus_curl_api *api, CURLcode code) {
    return ((const char *(*)(CURLcode))api->easy_strerror)(code);
}
static inline struct curl_slist *locus_curl_slist_append(const locus_curl_api *api, struct curl_slist *list, const char *line) {
    return ((struct curl_slist *(*)(struct curl_slist *, const char *))api->slist_append)(list, line);
}
static inline void locus_curl_slist_free_all(const locus_curl_api *api, struct curl_slist *list) {
    ((void (*)(struct curl_slist *))api->slist_free_all)(list);
}
static inline CURLU *locus_curl_url(const locus_curl_api *api) {
    return ((CURLU *(*)(void))api->url)();
}
static inline void locus_curl_url_cleanup(const locus_curl_api *api, CURLU *url) {
    ((void (*)(CURLU *))api->url_cleanup)(url);
}
static inline CURLUcode locus_curl_url_set(const locus_curl_api *api, CURLU *url, CURLUPart part, const char *text,
                                           unsigned int flags) {
    return ((CURLUcode (*)(CURLU *, CURLUPart, const char *, unsigned int))api->url_set)(url, part, text, flags);
}
static inline CURLUcode locus_curl_url_get(const locus_curl_api *api, CURLU *url, CURLUPart part, char **text,
                                           unsigned int flags) {
    return ((CURLUcode (*)(CURLU *, CURLUPart, char **, unsigned int))api->url_get)(url, part, text, flags);
}
static inline const char *locus_curl_url_strerror(const locus_curl_api *api, CURLUcode code) {
    return ((const char *(*)(CURLUcode))api->url_strerror)(code);
}
static inline void locus_curl_free(const locus_curl_api *api, void *pointer) {
    ((void (*)(void *))api->free)(pointer);
}
