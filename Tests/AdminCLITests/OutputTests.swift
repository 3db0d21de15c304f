import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("admin-cli output: tables, --json as received, --quiet, colour")
struct OutputTests {
    /// The body the API answers for `path`, fetched directly, to compare with what `--json` printed.
    private func directBody(_ path: String, cli: AdminCLI) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: cli.server.url + path)))
        request.setValue("Bearer \(cli.server.adminKey)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    @Test("apps: create, list, show and update as tables, JSON and identifiers")
    func apps() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("apps")
        let created = try await cli.succeed("apps", "create", app, "--name", "Output Test", "--primary-locale", "en-GB")
        #expect(created.stdout.contains("Created \(app)."))
        #expect(created.lines.contains("Primary locale:  en-GB"))

        let shown = try await cli.succeed("apps", "show", app, "--json")
        #expect(shown.stdout == (try await directBody("/v1/apps/\(app)", cli: cli)) + "\n", "--json prints the API's bytes")
        #expect(try shown.json()["name"] as? String == "Output Test")

        let updated = try await cli.succeed("apps", "update", app, "--name", "Renamed", "--quiet")
        #expect(updated.stdout == app + "\n")

        let list = try await cli.succeed("apps", "list", "--all")
        let header = try #require(list.lines.first)
        #expect(header.hasPrefix("BUNDLE ID") && header.contains("NAME") && header.contains("PRIMARY LOCALE"))
        let row = try #require(list.lines.first { $0.hasPrefix(app + " ") })
        // Columns are aligned: each value starts where its header does.
        #expect(row.range(of: "Renamed")?.lowerBound.utf16Offset(in: row) == header.range(of: "NAME")?.lowerBound.utf16Offset(in: header))
        #expect(row.range(of: "en-GB")?.lowerBound.utf16Offset(in: row) == header.range(of: "PRIMARY LOCALE")?.lowerBound.utf16Offset(in: header))
        #expect(try await cli.succeed("apps", "list", "--all", "--quiet").lines.contains(app))
        #expect(!list.stdout.contains("\u{1B}["), "no colour when piped")
    }

    @Test("groups: create, list, show by name, update")
    func groups() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("groups")
        try await cli.succeed("apps", "create", app, "--name", "Groups")
        let id = try await cli.succeed("groups", "create", "--app", app, "--name", "Premium", "--display-name", "Premium", "--quiet")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil)
        let list = try await cli.succeed("groups", "list", "--app", app)
        #expect(list.lines.first?.hasPrefix("ID") == true)
        #expect(list.lines.contains { $0.hasPrefix(id) && $0.contains("Premium") && $0.hasSuffix("en-US") })
        try await cli.succeed("groups", "update", "Premium", "--app", app, "--locale", "fr-FR", "--display-name", "Premium FR")
        let shown = try await cli.succeed("groups", "show", id, "--app", app, "--json").json()
        #expect((shown["localizations"] as? [[String: Any]])?.compactMap { $0["locale"] as? String } == ["en-US", "fr-FR"])
        let missing = try await cli.run("groups", "show", "Nope", "--app", app)
        #expect(missing.status == 66, "\(missing)")
    }

    @Test("products: list with filters and pagination, show, edit, --json pages as received")
    func products() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("products")
        try await cli.succeed("apps", "create", app, "--name", "Products")
        for index in 1...3 {
            try await cli.succeed("products", "create", "item.\(index)", "--app", app, "--type", "consumable",
                                  "--name", "Item \(index)", "--price", "1.\(index)9")
        }
        try await cli.succeed("products", "create", "sub.year", "--app", app, "--type", "non-renewing", "--name", "A year")

        let table = try await cli.succeed("products", "list", "--app", app)
        #expect(table.lines.count == 5)
        #expect(table.lines[0].hasPrefix("PRODUCT ID  TYPE"))
        #expect(table.lines[1].hasPrefix("item.1") && table.lines[1].contains("1.19 USD") && table.lines[1].contains("PENDING_DEVELOPER_APPROVAL"))

        #expect(try await cli.succeed("products", "list", "--app", app, "--type", "non-renewing", "--quiet").lines == ["sub.year"])
        #expect(try await cli.succeed("products", "list", "--app", app, "--query", "ITEM.2", "--quiet").lines == ["item.2"])

        // --json prints the page as the API sent it (byte for byte), one document per line.
        let pages = try await cli.succeed("products", "list", "--app", app, "--limit", "3", "--json")
        let documents = pages.lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(documents.count == 1)
        #expect((documents.first??["items"] as? [Any])?.count == 3)
        #expect(pages.stdout == (try await directBody("/v1/apps/\(app)/products?limit=3", cli: cli)) + "\n")
        let all = try await cli.succeed("products", "list", "--app", app, "--all", "--json")
        #expect(all.lines.count == 1)

        let edited = try await cli.succeed("products", "edit", "item.1", "--app", app, "--price", "2.49", "--name", "Item one",
                                           "--review-note", "Try it in the shop")
        #expect(edited.stdout.contains("Edited item.1: PENDING_DEVELOPER_APPROVAL, version 2"))
        let shown = try await cli.succeed("products", "show", "item.1", "--app", app)
        #expect(shown.lines.contains { $0.hasPrefix("Price") && $0.contains("2.49 USD") })
        #expect(shown.lines.contains { $0.hasPrefix("Reference name") && $0.contains("Item one") })
        #expect(shown.lines.contains { $0.hasPrefix("Next:") && $0.contains("approve") })
        let json = try await cli.succeed("products", "show", "item.1", "--app", app, "--json")
        #expect(json.stdout == (try await directBody("/v1/apps/\(app)/products/item.1", cli: cli)) + "\n")

        let cleared = try await cli.succeed("products", "edit", "item.1", "--app", app, "--clear", "reviewNote", "--json").json()
        #expect(cleared["reviewNote"] == nil)
        let file = try cli.file("edit.json", #"{"referenceName": "Item from file", "localizations": [{"locale": "en-US", "displayName": "Item", "description": "An item"}]}"#)
        let fromFile = try await cli.succeed("products", "edit", "item.1", "--app", app, "--file", file, "--json").json()
        #expect(fromFile["referenceName"] as? String == "Item from file")
        #expect((fromFile["missingForApproval"] as? [Any])?.isEmpty == true)
    }

    @Test("keys: create shows the token once, list never does, revoke stops the key")
    func keys() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("keys")
        try await cli.succeed("apps", "create", app, "--name", "Keys")
        let token = try await cli.succeed("keys", "create", "--role", "auditor", "--name", "Auditor \(app)", "--app", app, "--quiet")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!token.isEmpty)
        let created = try await cli.succeed("keys", "create", "--role", "developer", "--name", "Dev \(app)", "--json").json()
        let id = try #require(created["id"] as? String)
        let revokedToken = try #require(created["token"] as? String)

        let list = try await cli.succeed("keys", "list")
        #expect(list.lines.first?.hasPrefix("ID") == true)
        #expect(list.lines.contains { $0.hasPrefix(id) && $0.contains("developer") && $0.hasSuffix("active") })
        #expect(list.lines.contains { $0.contains("Auditor \(app)") && $0.contains(app) })
        #expect(!list.stdout.contains(token))

        let status = try await cli.succeed("status", environment: ["IAP_KEY": token])
        #expect(status.lines.contains { $0.hasPrefix("Role:") && $0.hasSuffix("auditor") })
        #expect(status.lines.contains { $0.hasPrefix("Apps:") && $0.hasSuffix(app) })

        try await cli.succeed("keys", "revoke", id, "--yes")
        let revoked = try await cli.succeed("keys", "list").lines.first { $0.hasPrefix(id) } ?? ""
        #expect(revoked.contains("revoked"))
        let refusedKey = try await cli.run("products", "list", "--app", app, environment: ["IAP_KEY": revokedToken])
        #expect(refusedKey.status == 77, "a revoked key: \(refusedKey)")
        #expect(refusedKey.stderr.contains("the key is unknown, revoked or expired"))
        let refused = try await cli.run("keys", "revoke", id)
        #expect(refused.status == 64, "no --yes without a terminal: \(refused)")
    }

    @Test("identifiers work without a key; status reports health and key as JSON")
    func identifiersAndStatus() async throws {
        let cli = try await AdminCLI.forTest()
        let app = AdminCLI.uniqueApp("public")
        try await cli.succeed("apps", "create", app, "--name", "Public")
        let keyless = cli.unconfigured()
        let empty = try await keyless.succeed("identifiers", "--app", app, "--url", cli.server.url)
        #expect(empty.stdout.isEmpty)
        #expect(empty.stderr.contains("Nothing is on sale"))
        let json = try await keyless.succeed("identifiers", "--app", app, "--url", cli.server.url, "--json").json()
        #expect(json["bundleId"] as? String == app)
        #expect(json["productIdentifiers"] as? [String] == [])
        let missing = try await keyless.run("identifiers", "--app", "com.test.missing", "--url", cli.server.url)
        #expect(missing.status == 66, "\(missing)")

        let status = try await cli.succeed("status", "--json").json()
        #expect((status["health"] as? [String: Any])?["status"] as? String == "ok")
        #expect((status["key"] as? [String: Any])?["role"] as? String == "admin")
        let human = try await cli.succeed("status")
        #expect(human.lines.contains { $0.hasPrefix("Health:") && $0.contains("ready") })
        #expect(human.lines.contains { $0.hasPrefix("Key:") && $0.contains("test admin (from $IAP_KEY)") })
    }

    @Test("colour only when asked for and allowed: CLICOLOR_FORCE on, NO_COLOR and --no-color off")
    func colour() async throws {
        let cli = try await AdminCLI.forTest()
        try await cli.succeed("apps", "create", AdminCLI.uniqueApp("colour"), "--name", "Colour")
        let forced = try await cli.succeed("apps", "list", environment: ["CLICOLOR_FORCE": "1"])
        #expect(forced.stdout.contains("\u{1B}[1m"), "a bold header")
        let noColor = try await cli.succeed("apps", "list", environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"])
        #expect(!noColor.stdout.contains("\u{1B}["))
        let flag = try await cli.succeed("apps", "list", "--no-color", environment: ["CLICOLOR_FORCE": "1"])
        #expect(!flag.stdout.contains("\u{1B}["))
    }
}
