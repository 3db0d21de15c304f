import CatalogCore
import Foundation
import Yams

extension CatalogFile {
    /// Reads a catalog file, YAML or JSON (JSON is YAML).
    ///
    /// Every problem of the file's shape is reported at once, at its path, with its line: an unknown key (a typo
    /// would otherwise be ignored and its value lost), a missing one, a value of the wrong kind or outside its
    /// list. Values are taken as written: an amount is the text of its scalar (`0.99` and `"0.99"` alike), never
    /// a binary float. Anchors and aliases are refused (a catalog needs none, and aliases can make a small file
    /// expand to an enormous tree).
    public init(reading bytes: some Collection<UInt8>) throws(CatalogFileError) {
        guard let text = String(validating: Array(bytes), as: UTF8.self) else {
            throw .syntax(line: nil, column: nil, message: "the file is not UTF-8 text")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.syntaxError(error)
        } catch {
            throw .syntax(line: nil, column: nil, message: "\(error)")
        }
        guard let root else { throw .invalid([FieldProblem(field: "$", rule: "required", message: "the file is empty")]) }
        if let line = Self.firstAnchorOrAlias(in: text) {
            throw .invalid([FieldProblem(field: "$", rule: "anchor",
                                         message: "anchors and aliases (&, *) are not supported in a catalog file (line \(line))")])
        }
        var reader = NodeReader()
        let file = reader.file(root)
        guard let file, reader.problems.isEmpty else { throw .invalid(reader.problems) }
        self = file
    }

    /// The line of the first anchor (`&name`) or alias (`*name`): a value that starts with `&` or `*` outside
    /// quotes and comments (a plain scalar cannot start with either). A catalog needs none, and aliases can make a
    /// small file expand to an enormous tree.
    static func firstAnchorOrAlias(in text: String) -> Int? {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var quote: Character?
            var atValueStart = true
            var previous: Character = " "
            for character in line {
                if let open = quote {
                    if character == open && previous != "\\" { quote = nil }
                } else if character == "#" && (previous == " " || previous == "\t" || atValueStart) {
                    break
                } else if atValueStart && (character == "&" || character == "*") {
                    return number + 1
                } else if character == "\"" || character == "'" {
                    if atValueStart { quote = character }
                    atValueStart = false
                } else if character == " " || character == "\t" {
                    atValueStart = atValueStart || previous == ":" || previous == "-" || previous == ","
                } else if character == "[" || character == "{" || character == "," {
                    atValueStart = true
                } else {
                    atValueStart = false
                }
                previous = character
            }
        }
        return nil
    }

    private static func syntaxError(_ error: YamlError) -> CatalogFileError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return .syntax(line: mark.line, column: mark.column,
                           message: [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": "))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return .syntax(line: context.mark.line, column: context.mark.column,
                           message: "a key appears twice in one mapping: \(duplicates.sorted().joined(separator: ", "))")
        case .reader(let problem, _, _, _):
            return .syntax(line: nil, column: nil, message: problem)
        default:
            return .syntax(line: nil, column: nil, message: "\(error)")
        }
    }
}

extension CatalogFile.Item {
    /// The keys of a product in the file, in the canonical order.
    public static var keys: [String] { NodeReader.productKeys }
}

/// Walks the YAML tree into the file's model, noting every problem with its path and line.
struct NodeReader {
    private(set) var problems: [FieldProblem] = []

    static let fileKeys = ["$schema", "version", "app", "subscriptionGroups", "products"]
    static let groupKeys = ["referenceName", "localizations"]
    static let groupLocalizationKeys = ["locale", "name"]
    static let productKeys = [
        "productId", "type", "referenceName", "price", "territoryPrices", "subscriptionGroup", "level", "duration",
        "introductoryOffer", "familyShareable", "clearedForSale", "localizations", "reviewNote",
    ]
    static let priceKeys = ["currency", "amount"]
    static let territoryPriceKeys = ["territory", "currency", "amount"]
    static let localizationKeys = ["locale", "displayName", "description"]
    static let offerKeys = ["paymentMode", "period", "numberOfPeriods", "amount"]

    mutating func file(_ node: Node) -> CatalogFile? {
        guard let map = mapping(node, at: "$", keys: Self.fileKeys) else { return nil }
        _ = map.value("$schema").flatMap { text($0, at: "$schema") }
        if let version = required(map, "version", at: "version").flatMap({ integer($0, at: "version") }),
           version != CatalogFile.formatVersion {
            add("version", "supported", "version \(version) is not a version this service reads (it reads 1)", node: map.value("version"))
        }
        let app = map.value("app").flatMap { text($0, at: "app") }
        let groups = list(map.value("subscriptionGroups"), at: "subscriptionGroups") { reader, node, path in
            reader.group(node, at: path)
        }
        let products = list(map.value("products"), at: "products") { reader, node, path in
            reader.product(node, at: path)
        }
        return CatalogFile(app: app, subscriptionGroups: groups, products: products)
    }

    private mutating func group(_ node: Node, at path: String) -> CatalogFile.Group? {
        guard let map = mapping(node, at: path, keys: Self.groupKeys) else { return nil }
        let name = required(map, "referenceName", at: path).flatMap { text($0, at: "\(path).referenceName") }
        let localizations = list(map.value("localizations"), at: "\(path).localizations") { reader, node, path in
            reader.groupLocalization(node, at: path)
        }
        return name.map { CatalogFile.Group(referenceName: $0, localizations: localizations) }
    }

    private mutating func groupLocalization(_ node: Node, at path: String) -> SubscriptionGroup.Localization? {
        guard let map = mapping(node, at: path, keys: Self.groupLocalizationKeys) else { return nil }
        let locale = required(map, "locale", at: path).flatMap { text($0, at: "\(path).locale") }
        let name = required(map, "name", at: path).flatMap { text($0, at: "\(path).name") }
        guard let locale, let name else { return nil }
        return SubscriptionGroup.Localization(locale: locale, name: name)
    }

    private mutating func product(_ node: Node, at path: String) -> CatalogFile.Item? {
        guard let map = mapping(node, at: path, keys: Self.productKeys) else { return nil }
        let productID = required(map, "productId", at: path).flatMap { text($0, at: "\(path).productId") }
        let type = required(map, "type", at: path).flatMap { choice($0, at: "\(path).type", PurchaseType.self) }
        let referenceName = required(map, "referenceName", at: path).flatMap { text($0, at: "\(path).referenceName") }
        let price = map.value("price").flatMap { self.price($0, at: "\(path).price") }
        let territoryPrices = list(map.value("territoryPrices"), at: "\(path).territoryPrices") { reader, node, path in
            reader.territoryPrice(node, at: path)
        }
        let group = map.value("subscriptionGroup").flatMap { text($0, at: "\(path).subscriptionGroup") }
        let level = map.value("level").flatMap { integer($0, at: "\(path).level") }
        let duration = map.value("duration").flatMap { choice($0, at: "\(path).duration", SubscriptionDuration.self) }
        let offer = map.value("introductoryOffer").flatMap { self.offer($0, at: "\(path).introductoryOffer") }
        let familyShareable = map.value("familyShareable").flatMap { boolean($0, at: "\(path).familyShareable") }
        let clearedForSale = map.value("clearedForSale").flatMap { boolean($0, at: "\(path).clearedForSale") }
        let localizations = list(map.value("localizations"), at: "\(path).localizations") { reader, node, path in
            reader.localization(node, at: path)
        }
        let reviewNote = map.value("reviewNote").flatMap { text($0, at: "\(path).reviewNote") }
        guard let productID, let type, let referenceName else { return nil }
        return CatalogFile.Item(
            productID: productID, type: type, referenceName: referenceName, price: price, territoryPrices: territoryPrices,
            localizations: localizations, familyShareable: familyShareable ?? false, clearedForSale: clearedForSale ?? true,
            reviewNote: reviewNote, subscriptionGroup: group, level: level, duration: duration, introductoryOffer: offer)
    }

    private mutating func price(_ node: Node, at path: String) -> Price? {
        guard let map = mapping(node, at: path, keys: Self.priceKeys) else { return nil }
        let currency = required(map, "currency", at: path).flatMap { text($0, at: "\(path).currency") }
        let amount = required(map, "amount", at: path).flatMap { self.amount($0, at: "\(path).amount") }
        guard let currency, let amount else { return nil }
        return Price(currency: currency, amount: amount)
    }

    private mutating func territoryPrice(_ node: Node, at path: String) -> TerritoryPrice? {
        guard let map = mapping(node, at: path, keys: Self.territoryPriceKeys) else { return nil }
        let territory = required(map, "territory", at: path).flatMap { text($0, at: "\(path).territory") }
        let currency = required(map, "currency", at: path).flatMap { text($0, at: "\(path).currency") }
        let amount = required(map, "amount", at: path).flatMap { self.amount($0, at: "\(path).amount") }
        guard let territory, let currency, let amount else { return nil }
        return TerritoryPrice(territory: territory, currency: currency, amount: amount)
    }

    private mutating func localization(_ node: Node, at path: String) -> Localization? {
        guard let map = mapping(node, at: path, keys: Self.localizationKeys) else { return nil }
        let locale = required(map, "locale", at: path).flatMap { text($0, at: "\(path).locale") }
        let displayName = required(map, "displayName", at: path).flatMap { text($0, at: "\(path).displayName") }
        let description = required(map, "description", at: path).flatMap { text($0, at: "\(path).description") }
        guard let locale, let displayName, let description else { return nil }
        return Localization(locale: locale, displayName: displayName, description: description)
    }

    private mutating func offer(_ node: Node, at path: String) -> IntroductoryOffer? {
        guard let map = mapping(node, at: path, keys: Self.offerKeys) else { return nil }
        let mode = required(map, "paymentMode", at: path)
            .flatMap { choice($0, at: "\(path).paymentMode", IntroductoryOffer.PaymentMode.self) }
        let period = required(map, "period", at: path).flatMap { choice($0, at: "\(path).period", OfferPeriod.self) }
        let count = map.value("numberOfPeriods").flatMap { integer($0, at: "\(path).numberOfPeriods") }
        let amount = map.value("amount").flatMap { self.amount($0, at: "\(path).amount") }
        guard let mode, let period else { return nil }
        return IntroductoryOffer(paymentMode: mode, period: period, numberOfPeriods: count ?? 1, amount: amount)
    }

    // MARK: Values

    /// A mapping's pairs by key, in order.
    struct Mapping {
        let node: Node
        let pairs: [(key: String, value: Node)]

        /// The value of `key`; `nil` when absent or written as null (`~`, nothing).
        func value(_ key: String) -> Node? {
            guard let value = pairs.first(where: { $0.key == key })?.value else { return nil }
            if case .scalar = value, Resolver.default.resolveTag(of: value) == .null { return nil }
            return value
        }
    }

    private mutating func mapping(_ node: Node, at path: String, keys: [String]) -> Mapping? {
        guard case .mapping(let mapping) = node else {
            add(path, "type", "expected a mapping (key: value lines), found \(kind(node))", node: node)
            return nil
        }
        var pairs: [(key: String, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let key) = keyNode else {
                add(path, "type", "a key must be plain text", node: keyNode)
                continue
            }
            guard keys.contains(key.string) else {
                let hint = keys.first { Self.distance($0.lowercased(), key.string.trimmingCharacters(in: .whitespaces).lowercased()) <= 2 }
                add(path == "$" ? key.string : "\(path).\(key.string)", "unknown",
                    hint.map { "unknown key \"\(key.string.prefix(40))\"; did you mean \"\($0)\"?" }
                        ?? "unknown key \"\(key.string.prefix(40))\"; expected one of \(keys.joined(separator: ", "))",
                    node: keyNode)
                continue
            }
            pairs.append((key.string, value))
        }
        return Mapping(node: node, pairs: pairs)
    }

    /// How many characters to insert, delete or replace to make one text the other (Levenshtein), for a hint at
    /// the key a typo meant.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var next = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[b.count]
    }

    private mutating func required(_ map: Mapping, _ key: String, at path: String) -> Node? {
        guard let value = map.value(key) else {
            add(path == "$" ? key : "\(path).\(key)", "required", "is required", node: map.node)
            return nil
        }
        return value
    }

    /// The elements of a list (absent or null: none), each read by `element` at its path.
    private mutating func list<Element>(_ node: Node?, at path: String,
                                        _ element: (inout NodeReader, Node, String) -> Element?) -> [Element] {
        guard let node else { return [] }
        if case .scalar = node, Resolver.default.resolveTag(of: node) == .null { return [] }
        guard case .sequence(let sequence) = node else {
            add(path, "type", "expected a list (lines starting with \"- \"), found \(kind(node))", node: node)
            return []
        }
        var elements: [Element] = []
        for (index, item) in sequence.enumerated() {
            if let read = element(&self, item, "\(path)[\(index)]") { elements.append(read) }
        }
        return elements
    }

    /// Text: any scalar's text as written (`referenceName: 100` is "100").
    private mutating func text(_ node: Node, at path: String) -> String? {
        guard case .scalar(let scalar) = node else {
            add(path, "type", "expected text, found \(kind(node))", node: node)
            return nil
        }
        return scalar.string
    }

    /// A decimal amount, as written: `"0.99"` and `0.99` are both the text 0.99 (the catalog checks its shape).
    private mutating func amount(_ node: Node, at path: String) -> DecimalAmount? {
        text(node, at: path).map { DecimalAmount($0) }
    }

    private mutating func integer(_ node: Node, at path: String) -> Int? {
        guard case .scalar(let scalar) = node, Resolver.default.resolveTag(of: node) == .int, let value = Int(scalar.string) else {
            add(path, "type", "expected a whole number, found \(kind(node))", node: node)
            return nil
        }
        return value
    }

    private mutating func boolean(_ node: Node, at path: String) -> Bool? {
        guard case .scalar = node, Resolver.default.resolveTag(of: node) == .bool, let value = node.bool else {
            add(path, "type", "expected true or false, found \(kind(node))", node: node)
            return nil
        }
        return value
    }

    private mutating func choice<Value: RawRepresentable & CaseIterable>(_ node: Node, at path: String, _: Value.Type)
        -> Value? where Value.RawValue == String
    {
        guard let text = text(node, at: path) else { return nil }
        guard let value = Value(rawValue: text) else {
            add(path, "enum", "\"\(text.prefix(40))\" is not one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))",
                node: node)
            return nil
        }
        return value
    }


    private func kind(_ node: Node) -> String {
        switch node {
        case .scalar:
            switch Resolver.default.resolveTag(of: node) {
            case .null: "nothing"
            case .bool: "a boolean"
            case .int, .float: "a number"
            default: "text"
            }
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    private mutating func add(_ path: String, _ rule: String, _ message: String, node: Node?) {
        let line = node?.mark.map { " (line \($0.line))" } ?? ""
        problems.append(FieldProblem(field: path, rule: rule, message: message + line))
    }
}
