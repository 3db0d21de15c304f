import CatalogCore
import Foundation

/// The review lifecycle as a picture, laid out from CatalogCore's one transition table (``Transition/table``)
/// and the one state change that is not an action (``Transition/approvalRevokedByEdit``); nothing about the
/// lifecycle is written here. The template `lifecycle.mustache` draws it as SVG.
///
/// The states stand in one column, in lifecycle order: ranked by their distance from the initial state along
/// the table's moves (a `withdraw`, which returns wherever the submission came from, does not rank), and within
/// a rank a state that leads to another of the same rank comes first. A move down the column is an arc on the
/// right, a move back up an arc on the left; an arc's bulge grows with the rows it spans, and its label sits at
/// its apex, moved down where it would overlap another label. The picture is a plain layout of the data, so a
/// change to the table redraws it.
struct LifecycleDiagram: Sendable {
    /// One state's box.
    struct Node: Sendable {
        let state: String
        let x: Int
        let y: Int
        let width: Int
        let height: Int
        let textX: Int
        let textY: Int
        /// The product's state, drawn highlighted.
        let current: Bool
        let terminal: Bool
        let initial: Bool
        let cssClass: String
    }

    /// One arc: every action that moves a product from one state to another.
    struct Edge: Sendable {
        let from: String
        let to: String
        let label: String
        /// SVG path data.
        let path: String
        let labelX: Int
        let labelY: Int
        let anchor: String
        let cssClass: String
    }

    /// One move as the table gives it, for the text alternative and the tests.
    struct Move: Sendable, Hashable {
        let action: String
        let from: ReviewState
        let to: ReviewState
        let role: String
    }

    let width: Int
    let height: Int
    /// How far right the column (laid out at x = 0) is moved.
    let offsetX: Int
    let nodes: [Node]
    let edges: [Edge]
    /// Every move, in table order, as text beside the picture.
    let moves: [MoveRow]
    /// What the picture says, for assistive technology.
    let summary: String

    struct MoveRow: Sendable {
        let action: String
        let from: String
        let to: String
        let role: String
        let current: Bool
    }

    /// The label of the one state change that is not an action.
    static let editLabel = "edit of reviewed fields"

    /// Every move of the lifecycle: each table row from each of its states to each state it can lead to, then
    /// the edit that revokes an approval.
    static let moves: [Move] = Transition.table.flatMap { transition in
        transition.from.flatMap { from in
            transition.to.possibleStates.map {
                Move(action: transition.action.rawValue, from: from, to: $0, role: transition.role.rawValue)
            }
        }
    } + [Move(action: editLabel, from: Transition.approvalRevokedByEdit.from,
              to: Transition.approvalRevokedByEdit.to, role: KeyRole.developer.rawValue)]

    /// The states in the column's order.
    static let order: [ReviewState] = {
        let ranking = Transition.table.filter { $0.to != .submissionOrigin }
        var rank: [ReviewState: Int] = [ReviewState.initial: 0]
        var discovered: [ReviewState] = [ReviewState.initial]
        var frontier = [ReviewState.initial]
        while !frontier.isEmpty {
            var next: [ReviewState] = []
            for state in frontier {
                for transition in ranking where transition.from.contains(state) {
                    for target in transition.to.possibleStates where rank[target] == nil {
                        rank[target] = rank[state]! + 1
                        discovered.append(target)
                        next.append(target)
                    }
                }
            }
            frontier = next
        }
        // States no move reaches (none today) go last, so that every state is drawn.
        for state in ReviewState.allCases where rank[state] == nil {
            rank[state] = (rank.values.max() ?? 0) + 1
            discovered.append(state)
        }
        var order: [ReviewState] = []
        for level in Set(rank.values).sorted() {
            var remaining = discovered.filter { rank[$0] == level }
            // Kahn's order over the moves within the rank; a cycle is broken by discovery order.
            while !remaining.isEmpty {
                let pick = remaining.first { candidate in
                    !LifecycleDiagram.moves.contains { $0.to == candidate && $0.from != candidate && remaining.contains($0.from) }
                } ?? remaining[0]
                order.append(pick)
                remaining.removeAll { $0 == pick }
            }
        }
        // A terminal state ends its rank, and the column.
        return order.filter { !$0.isTerminal } + order.filter(\.isTerminal)
    }()

    // Geometry, in SVG user units.
    private static let boxWidth = 220
    private static let boxHeight = 34
    private static let rowPitch = 70
    private static let top = 20
    private static let labelHeight = 15

    /// The picture, with `current` highlighted when given (and the moves out of it marked).
    init(highlighting current: ReviewState? = nil) {
        let order = Self.order
        let row = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        // How far arcs and labels reach beside the column, found while laying them out.
        var extent = 0
        height = Self.top * 2 + (order.count - 1) * Self.rowPitch + Self.boxHeight
        func centerY(_ state: ReviewState) -> Int { Self.top + row[state]! * Self.rowPitch + Self.boxHeight / 2 }

        let left = 0
        let nodes = order.map { state in
            let y = centerY(state) - Self.boxHeight / 2
            var classes = ["state"]
            if state == current { classes.append("current") }
            if state.isTerminal { classes.append("terminal") }
            if state == .initial { classes.append("initial") }
            return Node(state: state.rawValue, x: left, y: y, width: Self.boxWidth, height: Self.boxHeight,
                        textX: left + Self.boxWidth / 2, textY: y + Self.boxHeight / 2 + 5, current: state == current,
                        terminal: state.isTerminal, initial: state == .initial, cssClass: classes.joined(separator: " "))
        }

        // One arc per ordered pair of states, labelled with every action between them.
        var pairs: [(from: ReviewState, to: ReviewState, actions: [String], edit: Bool)] = []
        for move in Self.moves {
            let isEdit = move.action == Self.editLabel
            if let index = pairs.firstIndex(where: { $0.from == move.from && $0.to == move.to }) {
                if !pairs[index].actions.contains(move.action) { pairs[index].actions.append(move.action) }
            } else {
                pairs.append((move.from, move.to, [move.action], isEdit))
            }
        }
        // Each arc gets a lane on its side: the nearest one no arc it overlaps has (shorter arcs first), so that
        // arcs spanning the same rows bulge to different widths and their labels stand apart.
        func span(_ pair: (from: ReviewState, to: ReviewState, actions: [String], edit: Bool)) -> (Int, Int) {
            (min(row[pair.from]!, row[pair.to]!), max(row[pair.from]!, row[pair.to]!))
        }
        let sorted = pairs.enumerated().sorted {
            let a = span($0.element), b = span($1.element)
            return (a.1 - a.0, a.0, $0.offset) < (b.1 - b.0, b.0, $1.offset)
        }
        var lanes: [Int: Int] = [:]
        for (index, pair) in sorted {
            let (low, high) = span(pair)
            let down = row[pair.to]! > row[pair.from]!
            let taken = Set(sorted.compactMap { other -> Int? in
                guard let lane = lanes[other.offset], (row[other.element.to]! > row[other.element.from]!) == down else {
                    return nil
                }
                let (otherLow, otherHigh) = span(other.element)
                return otherLow < high && low < otherHigh ? lane : nil
            })
            lanes[index] = (0...).first { !taken.contains($0) }!
        }
        // Where arcs meet a box: on each side, departures spread from the middle towards where they go, arrivals
        // from the middle towards where they come from, one port after another in lane order.
        var ports: [String: Int] = [:]
        func port(_ state: ReviewState, leaving: Bool, down: Bool) -> Int {
            let key = "\(state.rawValue) \(leaving) \(down)"
            defer { ports[key, default: 0] += 1 }
            let step = 4 + 5 * (ports[key] ?? 0)
            return centerY(state) + (leaving == down ? step : -step)
        }
        var placed: [(x0: Int, x1: Int, y0: Int, y1: Int)] = []
        var edges: [Edge] = []
        for (index, pair) in sorted {
            let lane = lanes[index]!
            let down = row[pair.to]! > row[pair.from]!
            let bulge = 44 + 56 * lane
            let edgeX = down ? left + Self.boxWidth : left
            let sign = down ? 1 : -1
            // Going down an arc leaves below the middle and arrives above it; going up, the other way round.
            let y0 = port(pair.from, leaving: true, down: down)
            let y1 = port(pair.to, leaving: false, down: down)
            let control = edgeX + sign * bulge
            let path = "M\(edgeX) \(y0) C\(control) \(y0) \(control) \(y1) \(edgeX + sign * 6) \(y1)"
            let apexX = edgeX + sign * (bulge * 3 / 4)
            let label = pair.actions.joined(separator: ", ")
            let textWidth = label.count * 7 + 4
            var labelY = (y0 + y1) / 2 + 4
            let x0 = down ? apexX + 4 : apexX - 4 - textWidth
            let x1 = x0 + textWidth
            while placed.contains(where: { $0.x0 < x1 && x0 < $0.x1 && $0.y0 < labelY + 3 && labelY - Self.labelHeight + 3 < $0.y1 }) {
                labelY += Self.labelHeight
            }
            placed.append((x0, x1, labelY - Self.labelHeight + 3, labelY + 3))
            var classes = ["move", down ? "down" : "up"]
            if pair.edit { classes.append("edit") }
            if pair.from == current { classes.append("from-current") }
            edges.append(Edge(from: pair.from.rawValue, to: pair.to.rawValue, label: label, path: path,
                              labelX: down ? apexX + 4 : apexX - 4, labelY: labelY, anchor: down ? "start" : "end",
                              cssClass: classes.joined(separator: " ")))
            extent = max(extent, bulge * 3 / 4 + textWidth + 12)
        }
        // Laid out around a column at x = 0; moved right by the widest side, the column stands in the middle.
        self.nodes = nodes
        self.edges = edges
        offsetX = extent
        width = extent * 2 + Self.boxWidth
        moves = Self.moves.map {
            MoveRow(action: $0.action, from: $0.from.rawValue, to: $0.to.rawValue, role: $0.role, current: $0.from == current)
        }
        summary = "The review lifecycle: \(order.count) states and \(Transition.table.count) actions"
            + (current.map { "; this product is in \($0.rawValue)" } ?? "") + "."
    }
}
