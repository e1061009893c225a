#pragma once
// What makes a review page served by `tala review --serve` save every change to the server it
// came from: the page's token and a script that POSTs the page's export (its exportText()) to
// /labels a moment after each change. Shared by the results' and the testset's review pages,
// whose scripts both define $, save, exportText and labelled-or-decided counts.

#include <string>

namespace tala {

// Inserts the token and the saving script before the page's closing </body>.
void AddServedSaving(std::string& page, const std::string& token);

}  // namespace tala
