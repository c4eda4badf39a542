// The web console's pages, scripts and styles, compiled into the daemon from
// api/server/console/web/ (cmake/embed_assets.cmake): nothing is read from disk or fetched
// at run time.
#ifndef TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_ASSETS_H_
#define TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_ASSETS_H_

namespace topoplace::server {

struct ConsoleAsset {
  const char* path;          // "/index.html"
  const char* content_type;  // "text/html; charset=utf-8"
  const char* content;
};

extern const ConsoleAsset kConsoleAssets[];
extern const int kConsoleAssetCount;

}  // namespace topoplace::server

#endif  // TOPOPLACE_API_SERVER_CONSOLE_CONSOLE_ASSETS_H_
