import CatalogAPI
import CatalogCore
import CatalogFiles
import CatalogStore
import Foundation
import HTTPTypes
import Logging
import NIOPosix
import OpenAPIRuntime

extension CatalogAPIHandler {
    /// The app's catalog as a catalog file (YAML), as `pull` writes it but for the schema comment.
    func getCatalogFile(_ input: Operations.GetCatalogFile.Input) async throws -> Operations.GetCatalogFile.Output {
        let key = try Access.require(.readCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard let snapshot = try await database.catalog.snapshot(app.bundleID) else { throw Self.noApp(app.bundleID) }
        // Writing, reading and planning a catalog of thousands of products take a while: on the thread pool, not
        // the request's event loop (docs/decisions.md).
        let yaml = try await NIOThreadPool.singleton.runIfActive { CatalogFile(of: snapshot).yaml() }
        return .ok(.init(body: .yaml(HTTPBody(yaml))))
    }

    /// What applying the file would change, written nowhere.
    func planCatalogFile(_ input: Operations.PlanCatalogFile.Input) async throws -> Operations.PlanCatalogFile.Output {
        let key = try Access.require(.editCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .yaml(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let (file, fileName) = try await Self.uploadedFile(body, named: input.query.fileName)
        guard let snapshot = try await database.catalog.snapshot(app.bundleID) else { throw Self.noApp(app.bundleID) }
        let allowDeletions = input.query.allowDeletions ?? false
        let time = now()
        let plan = try await NIOThreadPool.singleton.runIfActive {
            try CatalogPlan.make(file: file, for: snapshot, allowDeletions: allowDeletions, at: time)
        }
        return .ok(.init(body: .json(try .init(plan, fileName: fileName))))
    }

    /// Applies the file exactly as planned: in one transaction over the locked catalog, the plan is made again and
    /// written only if it is the one whose fingerprint the caller gives and it refuses nothing.
    func applyCatalogFile(_ input: Operations.ApplyCatalogFile.Input) async throws -> Operations.ApplyCatalogFile.Output {
        let key = try Access.require(.editCatalog)
        let app = try await visibleApp(input.path.bundleId, for: key)
        guard case .yaml(let body) = input.body else { throw Problem(status: .unsupportedMediaType) }
        let (file, fileName) = try await Self.uploadedFile(body, named: input.query.fileName)
        guard let fingerprint = input.query.fingerprint else {
            throw CatalogError.validationFailed([FieldProblem(
                field: "fingerprint", rule: "required", message: "is required: the fingerprint of the plan to apply")])
        }
        // A file that is not a catalog file is refused before any lock is taken.
        _ = try await NIOThreadPool.singleton.runIfActive { try CatalogFile(reading: file) }
        let allowDeletions = input.query.allowDeletions ?? false
        let time = now()
        let plan = try await database.catalog.apply(app.bundleID) { snapshot -> (CatalogWrites, CatalogPlan) in
            let plan = try CatalogPlan.make(file: file, for: snapshot, allowDeletions: allowDeletions, at: time)
            guard plan.fingerprint == fingerprint else {
                throw try Problem.catalogPlan(plan, fileName: fileName, kind: "catalog-changed",
                                          title: "The catalog changed since the plan",
                                          detail: "nothing was applied: the catalog, the file or the options changed since "
                                              + "the plan; here is the plan as it stands now")
            }
            guard plan.isApplicable else {
                throw try Problem.catalogPlan(plan, fileName: fileName, kind: "plan-refused", title: "The plan refuses changes",
                                          detail: "nothing was applied: \(plan.refusals.count) step"
                                              + "\(plan.refusals.count == 1 ? " is" : "s are") refused; see plan.refusals")
            }
            return (self.writes(of: plan, by: key, app: app.bundleID, fileName: fileName), plan)
        }
        if plan.hasChanges {
            database.logger.info("catalog file applied", metadata: [
                "app": "\(app.bundleID)", "file": "\(fileName ?? "")", "sha256": "\(plan.fileSHA256)",
                "requestId": "\(RequestScope.requestID ?? "")",
            ])
        }
        return .ok(.init(body: .json(try .init(plan, fileName: fileName))))
    }

    /// The catalog file's JSON Schema, for editors.
    func getCatalogFileSchema(_ input: Operations.GetCatalogFileSchema.Input) async throws
        -> Operations.GetCatalogFileSchema.Output
    {
        let schema = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: CatalogFileSchema.data)
        return .ok(.init(body: .applicationSchemaJson(schema)))
    }

    /// The plan's steps as writes, each with its history event, whose reason names the file and its hash.
    private func writes(of plan: CatalogPlan, by key: APIKey, app: String, fileName: String?) -> CatalogWrites {
        let reason = "\(fileName.map { "catalog file \"\($0)\"" } ?? "a catalog file") (sha256 \(plan.fileSHA256))"
        var writes = CatalogWrites()
        for step in plan.groups {
            switch step.action {
            case .create:
                writes.newGroups.append(.init(group: step.group, event: record(
                    .groupCreated, by: key, app: app, reason: reason, changes: step.changes)))
            case .update:
                writes.editedGroups.append(.init(group: step.group, event: record(
                    .groupEdited, by: key, app: app, reason: reason, changes: step.changes)))
            case .unchanged, .delete:
                continue
            }
        }
        for step in plan.products {
            let product = step.product
            switch step.action {
            case .create:
                writes.newProducts.append(.init(product: product, previous: nil, event: record(
                    .created, by: key, app: app, productID: product.productID, productVersion: product.version,
                    to: product.state, reason: reason, changes: product.creationChanges)))
            case .update:
                let moved = step.stateChange
                writes.editedProducts.append(.init(product: product, previous: step.previous, event: record(
                    .edited, by: key, app: app, productID: product.productID, productVersion: product.version,
                    from: moved?.from, to: moved?.to, reason: reason,
                    changes: step.changes.map { FieldChange(field: $0.field, old: $0.old, new: $0.new) })))
            case .delete:
                writes.deletedProducts.append(.init(product: product, previous: product, event: record(
                    .deleted, by: key, app: app, productID: product.productID, productVersion: product.version + 1,
                    from: product.state, reason: reason)))
            case .unchanged:
                continue
            }
        }
        return writes
    }
}

extension Problem {
    /// Nothing of a catalog file was applied: the problem carries the plan as it stands now.
    static func catalogPlan(_ plan: CatalogPlan, fileName: String?, kind: String, title: String, detail: String)
        throws -> Problem
    {
        var problem = Problem(kind, .conflict, title, detail: detail)
        problem.plan = try Components.Schemas.CatalogPlan(plan, fileName: fileName)
        return problem
    }
}

extension Components.Schemas.CatalogPlan {
    init(_ plan: CatalogPlan, fileName: String?) throws {
        func count(_ action: CatalogPlan.Action) -> Int { plan.products.filter { $0.action == action }.count }
        func groups(_ action: CatalogPlan.Action) -> Int { plan.groups.filter { $0.action == action }.count }
        self.init(
            fingerprint: plan.fingerprint, fileSha256: plan.fileSHA256, fileName: fileName, hasChanges: plan.hasChanges,
            applicable: plan.isApplicable, allowDeletions: plan.allowsDeletions,
            summary: .init(create: count(.create), update: count(.update), unchanged: count(.unchanged),
                           delete: count(.delete), refused: plan.refusals.count, kept: plan.kept.count,
                           groupsCreate: groups(.create), groupsUpdate: groups(.update), groupsUnchanged: groups(.unchanged)),
            subscriptionGroups: try plan.groups.map {
                .init(path: $0.path, referenceName: $0.group.referenceName, action: EnumMapping.convert($0.action),
                      id: $0.group.id.lowercaseText,
                      changes: try $0.changes.map(Components.Schemas.FieldChange.init))
            },
            products: try plan.products.map { step in
                .init(path: step.path, productId: step.product.productID, _type: EnumMapping.convert(step.product.type),
                      action: EnumMapping.convert(step.action),
                      state: EnumMapping.convert(step.previous?.state ?? step.product.state),
                      stateAfter: step.stateChange.map { EnumMapping.convert($0.to) },
                      changes: try step.changes.map {
                          .init(field: $0.field, old: try $0.old.map(OpenAPIValueContainer.init),
                                new: try $0.new.map(OpenAPIValueContainer.init), revision: EnumMapping.convert($0.revision))
                      },
                      followUp: step.followUp.map { EnumMapping.convert($0) })
            },
            refusals: plan.refusals.map { .init(path: $0.path, productId: $0.productID, rule: $0.rule, message: $0.message) },
            kept: plan.kept.map { .init(productId: $0.productID, state: EnumMapping.convert($0.state), deletable: $0.deletable) },
            keptGroups: plan.keptGroups)
    }
}
