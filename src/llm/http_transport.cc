#include "llm/http_transport.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

namespace kforge::llm {

namespace {

/// State shared with libcurl's callbacks during one transfer.
struct Transfer {
  CURL* curl = nullptr;
  const HttpRequest* request = nullptr;
  HttpResponse response;
  bool aborted = false;
};

long response_code(CURL* curl) {
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  return code;
}

std::size_t on_write(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::size_t bytes = size * count;
  long code = response_code(transfer->curl);
  if (transfer->request->on_data && code >= 200 && code < 300) {
    if (!transfer->request->on_data(std::string_view(data, bytes))) {
      transfer->aborted = true;
      return 0;  // makes curl stop with CURLE_WRITE_ERROR
    }
    return bytes;
  }
  transfer->response.body.append(data, bytes);
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->request->cancelled && transfer->request->cancelled()) {
    transfer->aborted = true;
    return 1;  // makes curl stop with CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::size_t bytes = size * count;
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {
    transfer->response.headers.clear();  // a new response (after 100-continue or a redirect)
    return bytes;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
    value.remove_suffix(1);
  transfer->response.headers[name] = std::string(value);
  return bytes;
}

TransportError::Kind classify(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::Kind::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return TransportError::Kind::kConnection;
    default:
      return TransportError::Kind::kOther;
  }
}

std::string no_proxy_list() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"NO_PROXY", "no_proxy"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      list = std::string(value) + "," + list;
      break;
    }
  }
  return list;
}

/// The libcurl HttpTransport: one easy handle per request, so requests on several threads never
/// share state.
class CurlTransport final : public HttpTransport {
 public:
  CurlTransport() : no_proxy_(no_proxy_list()) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  std::expected<HttpResponse, TransportError> post(const HttpRequest& request) override {
    CURL* curl = curl_easy_init();
    if (curl == nullptr)
      return std::unexpected(TransportError{TransportError::Kind::kOther, "curl_easy_init failed"});
    Transfer transfer{curl, &request, {}, false};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers)
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    // Without this curl sends "Expect: 100-continue" for large bodies and waits for the server.
    headers = curl_slist_append(headers, "Expect:");
    char error_buffer[CURL_ERROR_SIZE] = {0};

    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
    if (request.cancelled) {
      curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
      curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
      curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, no_proxy_.c_str());
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(request.connect_timeout_s * 1000));
    if (request.timeout_s > 0)
      curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
    if (request.low_speed_time_s > 0) {
      curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                       std::max(1L, static_cast<long>(request.low_speed_time_s)));
    }

    CURLcode code = curl_easy_perform(curl);
    transfer.response.status = static_cast<int>(response_code(curl));
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    if (transfer.aborted)
      return std::unexpected(TransportError{TransportError::Kind::kAborted, "transfer aborted"});
    if (code != CURLE_OK) {
      std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
      return std::unexpected(TransportError{classify(code), detail});
    }
    return std::move(transfer.response);
  }

 private:
  std::string no_proxy_;
};

}  // namespace

std::shared_ptr<HttpTransport> make_curl_transport() {
  return std::make_shared<CurlTransport>();
}

}  // namespace kforge::llm
