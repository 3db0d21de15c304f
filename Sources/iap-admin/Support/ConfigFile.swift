import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's configuration: named profiles, each a server URL, an API key and perhaps a default app.
/// It lives at `$XDG_CONFIG_HOME/iap-catalog/config.json`, else `~/.config/iap-catalog/config.json`; it holds
/// keys, so it is written 0600 in a 0700 directory, and replaced atomically so that it is never half written.
struct ConfigFile: Codable, Equatable, Sendable {
    /// One server and the key to use there.
    struct Profile: Codable, Equatable, Sendable {
        var url: String
        var key: String?
        /// The app commands use when neither `--app` nor `IAP_APP` names one.
        var app: String?
    }

    var profiles: [String: Profile] = [:]

    /// The profile used when neither `--profile` nor `IAP_PROFILE` names one.
    static let defaultProfileName = "default"

    /// Where the file is for this environment.
    static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        }
        return base.appendingPathComponent("iap-catalog", isDirectory: true).appendingPathComponent("config.json")
    }

    /// The file at `url`, or an empty configuration when there is none yet.
    static func load(from url: URL) throws(CommandFailure) -> ConfigFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return ConfigFile() }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .configuration("cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ConfigFile.self, from: data)
        } catch {
            throw .configuration("\(url.path) is not a valid configuration file: \(JSONFile.describe(error))",
                                 hint: "fix it, or remove it and run admin-cli login again")
        }
    }

    /// Writes the file with mode 0600 (its directory 0700), through a temporary file renamed into place.
    func save(to url: URL) throws(CommandFailure) {
        let directory = url.deletingLastPathComponent()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            // The directory is ours alone, whoever made it and however.
            guard chmod(directory.path, 0o700) == 0 else { throw POSIXFailure(operation: "chmod", path: directory.path) }
            let data = try encoder.encode(self) + Data("\n".utf8)
            let temporary = directory.appendingPathComponent(".config.json.\(getpid()).tmp")
            // Created 0600 from the first byte: the key is never readable by others, not even for an instant.
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: temporary.path) }
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor)
            close(descriptor)
            guard written == data.count, synced == 0 else {
                unlink(temporary.path)
                throw POSIXFailure(operation: "write", path: temporary.path)
            }
            guard chmod(temporary.path, 0o600) == 0, rename(temporary.path, url.path) == 0 else {
                unlink(temporary.path)
                throw POSIXFailure(operation: "rename", path: url.path)
            }
        } catch let failure as POSIXFailure {
            throw .configuration("cannot write \(url.path): \(failure)")
        } catch {
            throw .configuration("cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    /// Whether people other than the owner may read the file (an old or hand-made file), to warn about it.
    static func isReadableByOthers(_ url: URL) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return false }
        return mode & 0o077 != 0
    }
}

/// A failed system call, with what it was doing.
private struct POSIXFailure: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code = errno

    var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}
