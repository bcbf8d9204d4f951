/**
 * The environment a sandboxed command gets: an allowlist, not a denylist. A name passes when a build needs
 * it — where programs and toolchains are, the locale, the terminal, proxies and CA bundles, compilers and
 * their flags, the pager settings Clamp itself sets — or when the person named it (the settings page's
 * "variables to pass", CLAMP_SANDBOX_ENV). Everything else stays outside: DATABASE_URL, PGPASSWORD, *_KEY,
 * *_TOKEN, npm's configuration (npm_config__authToken …), cloud credentials, Clamp's own token, and any
 * variable nobody thought of (Clamp's token not even when named). Even an allowed name is dropped when its value carries a password in a URL
 * (`https://user:secret@proxy`), unless the person named it.
 */

/** Names that pass as they are. */
const NAMES = new Set([
  // the basics
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'HOSTNAME', 'COLUMNS', 'LINES',
  'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_DIRS',
  // what Clamp sets so nothing waits for a keypress (runner.ts, commandEnv)
  'PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'GIT_TERMINAL_PROMPT', 'GCM_INTERACTIVE', 'GIT_EDITOR', 'EDITOR', 'VISUAL',
  'DEBIAN_FRONTEND', 'NO_COLOR', 'CLICOLOR',
  // git: who commits, and how Clamp's own git calls read paths and messages
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL',
  'GIT_LITERAL_PATHSPECS', 'GIT_OPTIONAL_LOCKS',
  // CA bundles and proxies
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS', 'GIT_SSL_CAINFO',
  'NIX_SSL_CERT_FILE', 'AWS_CA_BUNDLE', 'PIP_CERT', 'CARGO_HTTP_CAINFO', 'HTTPLIB2_CA_CERTS', 'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH',
  'http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY', 'all_proxy', 'ALL_PROXY', 'ftp_proxy', 'FTP_PROXY',
  // C and C++
  'CC', 'CXX', 'CPP', 'LD', 'AR', 'AS', 'NM', 'RANLIB', 'STRIP', 'OBJCOPY', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS',
  'MAKEFLAGS', 'CMAKE_PREFIX_PATH', 'CMAKE_GENERATOR', 'CCACHE_DIR', 'SCCACHE_DIR',
  'PKG_CONFIG_PATH', 'PKG_CONFIG_LIBDIR', 'PKG_CONFIG_SYSROOT_DIR', 'LD_LIBRARY_PATH', 'LIBRARY_PATH', 'CPATH', 'C_INCLUDE_PATH', 'CPLUS_INCLUDE_PATH',
  // Java and the JVM's build tools
  'JAVA_HOME', 'JDK_HOME', 'JRE_HOME', 'MAVEN_HOME', 'M2_HOME', 'GRADLE_HOME', 'GRADLE_USER_HOME', 'ANDROID_HOME', 'ANDROID_SDK_ROOT',
  'ANDROID_NDK_HOME', 'SDKMAN_DIR', 'SBT_HOME', 'KOTLIN_HOME',
  // Go
  'GOPATH', 'GOROOT', 'GOBIN', 'GOFLAGS', 'GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GONOSUMDB', 'GONOSUMCHECK', 'GOSUMDB', 'GO111MODULE', 'GOTOOLCHAIN',
  'GOCACHE', 'GOMODCACHE', 'GOOS', 'GOARCH', 'CGO_ENABLED', 'GOEXPERIMENT',
  // Rust
  'CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'RUSTFLAGS', 'RUSTDOCFLAGS', 'CARGO_TARGET_DIR', 'CARGO_BUILD_JOBS', 'RUST_BACKTRACE',
  'RUST_LOG', 'RUSTC_WRAPPER', 'RUSTUP_AUTO_INSTALL',
  // Python
  'PYENV_ROOT', 'PYENV_VERSION', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'CONDA_DEFAULT_ENV', 'CONDA_EXE', 'CONDA_PYTHON_EXE', 'CONDA_SHLVL', 'MAMBA_ROOT_PREFIX',
  'PYTHONPATH', 'PYTHONHOME', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED', 'PYTHONIOENCODING', 'PYTHONUTF8', 'PYTHONWARNINGS',
  'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_FIND_LINKS', 'PIP_NO_INDEX', 'PIP_DEFAULT_TIMEOUT', 'PIP_DISABLE_PIP_VERSION_CHECK', 'PIP_REQUIRE_VIRTUALENV',
  'POETRY_HOME', 'PIPX_HOME', 'PIPX_BIN_DIR', 'UV_CACHE_DIR', 'UV_PYTHON', 'UV_INDEX_URL', 'UV_EXTRA_INDEX_URL', 'WORKON_HOME',
  // JavaScript
  'NVM_DIR', 'NVM_BIN', 'NVM_INC', 'NODE_PATH', 'NODE_OPTIONS', 'NODE_ENV', 'VOLTA_HOME', 'PNPM_HOME', 'BUN_INSTALL', 'DENO_DIR', 'DENO_INSTALL',
  'FNM_DIR', 'COREPACK_HOME', 'npm_config_cache',
  // Ruby, .NET, Perl, Nix, version managers
  'RBENV_ROOT', 'GEM_HOME', 'GEM_PATH', 'DOTNET_ROOT', 'DOTNET_CLI_TELEMETRY_OPTOUT', 'NUGET_PACKAGES', 'PERL5LIB', 'PERL_LOCAL_LIB_ROOT',
  'PERL_MB_OPT', 'PERL_MM_OPT', 'NIX_PATH', 'NIX_PROFILES', 'ASDF_DIR', 'ASDF_DATA_DIR', 'MISE_DATA_DIR', 'SOURCE_DATE_EPOCH',
]);

/** Prefixes whose every name passes: the locale's categories. */
const PREFIXES = ['LC_'];

/** Never passed, even when named: Clamp's access token would let a command drive Clamp's API (and turn its own sandbox off). */
const NEVER = new Set(['CLAMP_TOKEN']);

/** A URL with a password in it (`scheme://user:secret@host`). */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/** Whether a name is on the allowlist (without the person's own names). */
export function allowedName(name: string): boolean {
  return NAMES.has(name) || PREFIXES.some((p) => name.startsWith(p));
}

/** A comma-separated list of names or paths (CLAMP_SANDBOX_ENV, CLAMP_SANDBOX_HIDE …), trimmed, empty ones left out. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * The environment a sandboxed command gets from `env`: the allowed names (an allowed name whose value holds a
 * URL with a password is left out) and the names the person chose to pass (`pass`), as they are.
 */
export function sandboxEnv(env: NodeJS.ProcessEnv, pass: readonly string[] = []): NodeJS.ProcessEnv {
  const chosen = new Set(pass);
  const out = {} as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || NEVER.has(k)) continue;
    if (chosen.has(k) || (allowedName(k) && !URL_PASSWORD.test(v))) out[k] = v;
  }
  return out;
}
