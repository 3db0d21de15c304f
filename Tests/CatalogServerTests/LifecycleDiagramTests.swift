@testable import CatalogServer
import CatalogCore
import Foundation
import Testing

/// The console's lifecycle picture is drawn from the one transition table: every move of it is an arc.
@Suite("Lifecycle diagram")
struct LifecycleDiagramTests {
    @Test("every transition of the table, from each of its states to each state it leads to, is an arc with its action")
    func everyTransition() {
        let diagram = LifecycleDiagram()
        var expected = 0
        for transition in Transition.table {
            for from in transition.from {
                for to in transition.to.possibleStates {
                    expected += 1
                    let arc = diagram.edges.first { $0.from == from.rawValue && $0.to == to.rawValue }
                    #expect(arc?.label.components(separatedBy: ", ").contains(transition.action.rawValue) == true,
                            "\(transition.action.rawValue): \(from.rawValue) → \(to.rawValue)")
                }
            }
        }
        let revoked = Transition.approvalRevokedByEdit
        #expect(diagram.edges.contains { $0.from == revoked.from.rawValue && $0.to == revoked.to.rawValue })
        // Nothing else is drawn: each arc's actions are moves of the table (or the edit).
        let drawn = diagram.edges.reduce(0) { $0 + $1.label.components(separatedBy: ", ").count }
        #expect(drawn == expected + 1)
        #expect(Set(diagram.nodes.map(\.state)) == Set(ReviewState.allCases.map(\.rawValue)))
        #expect(diagram.moves.count == expected + 1)
    }

    @Test("the product's state is highlighted, and the moves out of it")
    func highlight() {
        for state in ReviewState.allCases {
            let diagram = LifecycleDiagram(highlighting: state)
            #expect(diagram.nodes.filter(\.current).map(\.state) == [state.rawValue])
            let fromCurrent = diagram.edges.filter { $0.cssClass.contains("from-current") }
            #expect(fromCurrent.allSatisfy { $0.from == state.rawValue })
            #expect(fromCurrent.count == diagram.edges.filter { $0.from == state.rawValue }.count)
        }
        #expect(LifecycleDiagram().nodes.allSatisfy { !$0.current })
    }

    @Test("the column follows the lifecycle: the initial state first, the terminal one last, each arc inside the picture")
    func layout() {
        let diagram = LifecycleDiagram()
        #expect(diagram.nodes.first?.state == ReviewState.initial.rawValue)
        #expect(diagram.nodes.last?.state == ReviewState.rejected.rawValue)
        #expect(diagram.nodes.map(\.y) == diagram.nodes.map(\.y).sorted())
        for edge in diagram.edges {
            let x = edge.labelX + diagram.offsetX
            #expect(x > 0 && x < diagram.width && edge.labelY < diagram.height, "\(edge.label)")
        }
    }
}
