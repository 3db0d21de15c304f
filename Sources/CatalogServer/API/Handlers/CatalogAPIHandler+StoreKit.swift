import CatalogAPI
import CatalogCore
import CatalogStore
import Foundation
import HTTPTypes
import Logging
import NIOPosix
import OpenAPIRuntime
import StoreKitMapping

extension CatalogAPIHandler {
    /// Imports a StoreKit configuration file: all of it or none of it (docs/storekit.md).
    func importStoreKit(_ input: Operations.ImportStoreKit.Input) async throws -> Operations.ImportStoreKit.Output {
        let key = try Access.require(.importCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .binary(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let (file, fileName) = try await Self.uploadedFile(body, named: input.query.fileName)
        let snapshot = CatalogSnapshot(
            app: app, groups: try await database.subscriptionGroups.list(app.bundleID),
            products: try await database.storeKit.products(app.bundleID).map(\.value),
            reservedProductIDs: try await database.storeKit.reservedProductIDs(app.bundleID))
        let time = now()
        let currency = input.query.currency ?? StoreKitImporter.defaultCurrency
        let skipInvalid = input.query.skipInvalid ?? false
        // Reading a file of thousands of products takes a while: on the thread pool, not the request's event loop.
        let plan = try await NIOThreadPool.singleton.runIfActive {
            try StoreKitImporter.plan(file: file, currency: currency, into: snapshot, at: time, skipInvalid: skipInvalid)
        }
        let dryRun = input.query.dryRun ?? false
        if !dryRun {
            guard plan.conflicts.isEmpty else { throw Problem.importConflicts(plan.conflicts) }
            let reason = fileName.map { "imported from StoreKit file \"\($0)\"" } ?? "imported from a StoreKit file"
            try await database.storeKit.apply(ImportBatch(
                bundleID: app.bundleID,
                groups: plan.newGroups.map {
                    ImportBatch.NewGroup(group: $0.group, storekit: $0.storekit, event: record(
                        .groupCreated, by: key, app: app.bundleID, reason: reason, changes: $0.creationChanges))
                },
                products: plan.creations.map {
                    ImportBatch.NewProduct(product: $0.product, storekit: $0.storekit, event: record(
                        .created, by: key, app: app.bundleID, productID: $0.product.productID,
                        productVersion: $0.product.version, to: $0.product.state, reason: $0.historyReason(reason),
                        changes: $0.product.creationChanges))
                },
                document: plan.document, fileName: fileName, importedAt: time))
            database.logger.info("StoreKit file imported", metadata: [
                "app": "\(app.bundleID)", "file": "\(fileName ?? "")", "products": "\(plan.creations.count)",
                "groups": "\(plan.newGroups.count)", "repairs": "\(plan.repairs.count)", "skipped": "\(plan.skipped.count)",
                "requestId": "\(RequestScope.requestID ?? "")",
            ])
        }
        return .ok(.init(body: .json(.init(plan, dryRun: dryRun, fileName: fileName))))
    }

    /// Exports the app's catalog as a StoreKit configuration file, written as Xcode writes it.
    func exportStoreKit(_ input: Operations.ExportStoreKit.Input) async throws -> Operations.ExportStoreKit.Output {
        let key = try Access.require(.exportCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        let revision = input.query.revision.flatMap { ExportRevision(rawValue: $0.rawValue) } ?? .live
        let source = ExportSource(
            app: app,
            groups: try await database.storeKit.groups(app.bundleID).map { .init(group: $0.value, storekit: $0.storekit) },
            products: try await database.storeKit.products(app.bundleID).map { .init(product: $0.value, storekit: $0.storekit) },
            document: try await database.storeKit.document(app.bundleID))
        let export = try await NIOThreadPool.singleton.runIfActive { try StoreKitExporter.export(source, revision: revision) }
        let skipped = export.skipped.isEmpty ? nil
            : export.skipped.map { "\($0.productID)=\($0.reason.rawValue)" }.joined(separator: ", ")
        // The header values leave as they are written here (PlainHeaderValuesMiddleware), the bytes as Xcode's.
        return .ok(.init(headers: .init(xSkippedProducts: skipped,
                                        contentDisposition: "attachment; filename=\"\(app.bundleID).storekit\""),
                         body: .binary(HTTPBody(export.data))))
    }

    /// An uploaded file (a StoreKit or a catalog file): its bytes, which BodyLimitMiddleware has read already within
    /// the file limit, and the name the history gives it (`fileName`, checked).
    static func uploadedFile(_ body: HTTPBody, named name: String?) async throws
        -> (bytes: ArraySlice<UInt8>, name: String?)
    {
        (try await ArraySlice<UInt8>(collecting: body, upTo: BodyLimit.file), try checkedFileName(name))
    }

    /// A file name for history: 1–255 characters, none of them control characters.
    static func checkedFileName(_ name: String?) throws(CatalogError) -> String? {
        guard let name else { return nil }
        guard (1...255).contains(name.unicodeScalars.count),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .validationFailed([FieldProblem(field: "fileName", rule: "pattern",
                                                  message: "must be 1–255 characters without control characters")])
        }
        return name
    }
}

extension Problem {
    /// An import refused because products of the file are already in the catalog with other content.
    static func importConflicts(_ conflicts: [ImportPlan.Item]) -> Problem {
        var problem = Problem(
            "conflict", .conflict, "The file conflicts with the catalog",
            detail: "\(conflicts.count) product\(conflicts.count == 1 ? " is" : "s are") already in the catalog with other "
                + "content, or used before; nothing was imported")
        problem.conflicts = conflicts.map {
            Problem.Conflict(path: $0.path, productId: $0.product.productID, reason: $0.reason ?? "conflict")
        }
        return problem
    }
}

extension Components.Schemas.StoreKitImport {
    init(_ plan: ImportPlan, dryRun: Bool, fileName: String?) {
        let groups = plan.groups.map(Components.Schemas.StoreKitImportGroup.init)
        let products = plan.products.map(Components.Schemas.StoreKitImportProduct.init)
        self.init(dryRun: dryRun, fileName: fileName, currency: plan.currency, summary: .init(plan),
                  subscriptionGroups: groups, products: products,
                  warnings: plan.warnings.map(Components.Schemas.FieldProblem.init),
                  repairs: plan.products.flatMap { item in
                      item.repairs.map {
                          .init(path: $0.path, productId: item.product.productID, field: $0.field, rule: $0.rule,
                                from: $0.from, to: $0.to, message: $0.message)
                      }
                  },
                  skipped: plan.skipped.map {
                      .init(path: $0.path, productId: $0.productID, problems: $0.problems.map(Components.Schemas.FieldProblem.init))
                  })
    }
}

extension Components.Schemas.StoreKitImportSummary {
    init(_ plan: ImportPlan) {
        var byType: [PurchaseType: Int] = [:]
        var outcomes: [ImportPlan.Outcome: Int] = [:]
        for item in plan.products {
            byType[item.product.type, default: 0] += 1
            outcomes[item.outcome, default: 0] += 1
        }
        let types = ByTypePayload(
            consumable: byType[.consumable] ?? 0, nonConsumable: byType[.nonConsumable] ?? 0,
            autoRenewableSubscription: byType[.autoRenewableSubscription] ?? 0,
            nonRenewingSubscription: byType[.nonRenewingSubscription] ?? 0)
        let localizations = plan.creations.reduce(0) { $0 + $1.product.content.localizations.count }
        self.init(
            repaired: plan.repairs.count, skipped: plan.skipped.count,
            products: plan.products.count, create: outcomes[.create] ?? 0, unchanged: outcomes[.unchanged] ?? 0,
            conflict: outcomes[.conflict] ?? 0, byType: types, subscriptionGroupsCreated: plan.newGroups.count,
            subscriptionGroupsExisting: plan.groups.count - plan.newGroups.count, localizations: localizations,
            localizationsKeptForExport: plan.warnings.filter { $0.rule == "blank" }.count)
    }
}

extension Components.Schemas.StoreKitImportGroup {
    init(_ group: ImportPlan.Group) {
        self.init(path: group.path, id: group.group.id.lowercaseText, referenceName: group.group.referenceName,
                  outcome: group.isNew ? .create : .existing)
    }
}

extension Components.Schemas.StoreKitImportProduct {
    init(_ item: ImportPlan.Item) {
        self.init(path: item.path, productId: item.product.productID, _type: EnumMapping.convert(item.product.type),
                  outcome: EnumMapping.convert(item.outcome), reason: item.reason,
                  subscriptionGroupId: item.product.content.subscriptionGroupID?.lowercaseText,
                  level: item.product.content.level)
    }
}
