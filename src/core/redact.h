#pragma once
// Secrets that ride in a URL (user:password@, ?api_key=...) never reach a manifest, a log or a
// report: results files are attached to CI runs and committed. Pure.

#include <string>

namespace tala {

// "http://alice:pw@host/v1?api_key=s&x=1" → "http://***@host/v1?api_key=***&x=1". Query values
// are masked when their name suggests a secret (key, token, secret, password, auth, sig).
std::string RedactUrl(const std::string& url);

}  // namespace tala
