#pragma once
// The history kept by a running `tala serve`: the same operations as a file store, sent to its
// /v1/history routes over HTTP (libcurl, through runtime/http_client.h) with its bearer token.
// A run is read here and sent as JSON (history_json.h); the serve stores and compares it.

#include <memory>
#include <string>

#include "tala/history.h"

namespace tala::history {

std::unique_ptr<History> OpenRemote(const std::string& base_url, const std::string& token);

}  // namespace tala::history
