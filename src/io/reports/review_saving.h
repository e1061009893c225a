#pragma once
// What the results' and the testset's review pages share: their common style, the helpers their
// scripts call ($, el, download, wireLabellerAndExport), and what makes a page served by `tala
// review --serve` save every change to the server it came from. Each page's own script defines
// exportText(), save and progressText(), which these call.

#include <string>

namespace tala {

// `head` with its "@COMMON_STYLE@" slot filled with the pages' common rules.
std::string ReviewPageHead(const char* head);
// A <script> of the helpers, to go before the page's own script.
extern const char* const kReviewHelpersScript;

// Inserts the token and the saving script before the page's closing </body>.
void AddServedSaving(std::string& page, const std::string& token);

}  // namespace tala
