import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The console's Mustache templates (`Templates/*.mustache`, bundled as resources) and its one stylesheet.
///
/// Every value is HTML-escaped by the engine (`{{name}}`); no template uses the unescaped form, so a name
/// holding `<script>` is shown as text. View models are plain data: the templates hold all the markup.
struct ConsoleTemplates: Sendable {
    private let library: MustacheLibrary
    /// `Static/console.css`, served at ``ConsoleRoutes/stylesheetPath``.
    let stylesheet: ByteBuffer

    /// What went wrong reading the bundled templates: a broken build, never a request's fault.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads and parses every template of the bundle.
    init() throws {
        guard let folder = Bundle.module.url(forResource: "Templates", withExtension: nil),
              let stylesheet = Bundle.module.url(forResource: "Static", withExtension: nil)?
                  .appendingPathComponent("console.css")
        else { throw Missing(description: "the console's templates are missing from the build's resources") }
        var library = MustacheLibrary()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        for file in files where file.pathExtension == "mustache" {
            try library.register(String(contentsOf: file, encoding: .utf8),
                                 named: file.deletingPathExtension().lastPathComponent)
        }
        self.library = library
        self.stylesheet = ByteBuffer(bytes: try Data(contentsOf: stylesheet))
    }

    /// `view` rendered with the template `name`, as an HTML response with `status`.
    func page(_ name: String, _ view: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let html = library.render(view, withTemplate: name) else {
            throw Missing(description: "no console template \(name)")
        }
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
