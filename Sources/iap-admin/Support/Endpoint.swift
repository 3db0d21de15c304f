import Foundation

/// The server and key a command uses, and where each came from. Each setting is looked up on its own, and the
/// first of these wins: the flag (`--url`, `--key`, `--app`), the environment (`IAP_URL`, `IAP_KEY`,
/// `IAP_APP`), the profile of the config file (`--profile`, else `IAP_PROFILE`, else "default").
struct Endpoint: Sendable {
    /// Where a setting came from, so that messages can say which one to fix.
    enum Source: Sendable, Equatable, CustomStringConvertible {
        case flag(String)
        case environment(String)
        case profile(String)
        case standardInput
        case builtIn

        var description: String {
            switch self {
            case .flag(let name): "--\(name)"
            case .environment(let name): "$\(name)"
            case .profile(let name): "profile \"\(name)\""
            case .standardInput: "stdin"
            case .builtIn: "the default"
            }
        }
    }

    /// The server when nothing names one: where `iap-server serve` listens by default.
    static let defaultURL = "http://127.0.0.1:8080"

    let url: URL
    let urlSource: Source
    var key: String?
    var keySource: Source?
    /// The app commands use when they are not given `--app`.
    let app: String?
    let appSource: Source?
    let profileName: String
    let configLocation: URL

    /// Resolves the settings for `options` in `environment`. With `requireProfile`, naming a profile that
    /// does not exist is an error; `login`, which makes profiles, does not require it.
    init(options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
         requireProfile: Bool = true) throws(CommandFailure) {
        func nonEmpty(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        configLocation = ConfigFile.location(environment: environment)
        let explicitProfile = options.profile ?? nonEmpty("IAP_PROFILE")
        profileName = explicitProfile ?? ConfigFile.defaultProfileName
        let config = try ConfigFile.load(from: configLocation)
        let profile = config.profiles[profileName]
        if profile == nil, explicitProfile != nil, requireProfile {
            throw .configuration("there is no profile \"\(profileName)\" in \(configLocation.path)",
                                 hint: "create it with: admin-cli login --profile \(profileName) --url URL")
        }

        let urlText: String
        if let flag = options.url {
            (urlText, urlSource) = (flag, .flag("url"))
        } else if let variable = nonEmpty("IAP_URL") {
            (urlText, urlSource) = (variable, .environment("IAP_URL"))
        } else if let profile {
            (urlText, urlSource) = (profile.url, .profile(profileName))
        } else {
            (urlText, urlSource) = (Self.defaultURL, .builtIn)
        }
        url = try Self.serverURL(urlText, from: urlSource)

        if let flag = options.key {
            (key, keySource) = (flag, .flag("key"))
        } else if let variable = nonEmpty("IAP_KEY") {
            (key, keySource) = (variable, .environment("IAP_KEY"))
        } else if let stored = profile?.key {
            (key, keySource) = (stored, .profile(profileName))
        } else {
            (key, keySource) = (nil, nil)
        }

        if let variable = nonEmpty("IAP_APP") {
            (app, appSource) = (variable, .environment("IAP_APP"))
        } else if let stored = profile?.app {
            (app, appSource) = (stored, .profile(profileName))
        } else {
            (app, appSource) = (nil, nil)
        }
    }

    /// `text` as the base URL of the API: http or https, with a host, without a trailing slash.
    static func serverURL(_ text: String, from source: Source) throws(CommandFailure) -> URL {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            let status: ExitStatus = if case .flag = source { .usage } else { .configuration }
            throw CommandFailure(status, "the server URL \"\(text)\" (from \(source)) is not an http(s) URL",
                                 hint: "give it as http://HOST:PORT or https://HOST, e.g. \(defaultURL)")
        }
        return url
    }
}
