package web

import "time"

// The routes of the tasks board and of a task's page.
const (
	RouteTasks = "GET /mail/{project}/tasks"
	RouteTask  = "GET /mail/{project}/task/{id}"
)

// TasksURL is the address of a project's tasks board.
func TasksURL(project string) string { return mailURL(project, "tasks") }

// TaskURL is the address of a task's page.
func TaskURL(project, id string) string { return mailURL(project, "task", id) }

// Task is a work item as the board and its page show it.
type Task struct {
	ID          string
	Short       string // the shortest prefix that names it
	Title       string
	Description string // markdown
	Type        string
	Priority    int
	Status      string // open, in_progress, closed
	StatusWords string // open, in progress, closed
	CloseReason string
	Parent      TaskRef // its epic; ID "" for none
	Deps        []TaskRef
	Labels      []string
	Paths       []string
	Creator     string
	Holder      string // "" when unclaimed
	Since       time.Time
	Created     time.Time
	Updated     time.Time
	Closed      time.Time
}

// TaskRef names another task: a dependency, an epic, an epic's task.
type TaskRef struct {
	ID     string
	Short  string
	Title  string
	Closed bool
	Status string // in words: open, in progress, closed
}

// Column is one column of the board.
type Column struct {
	Key   string // ready, progress, blocked, closed
	Title string
	Tasks []Task
	Total int // tasks in the column, shown or not
	More  int // tasks not shown: past the top 100 (closed: the newest 30)
}

// TasksView is a project's board: ready, in progress, blocked, closed.
type TasksView struct {
	Page
	Columns []Column
}

// TaskChange is one line of a task's history.
type TaskChange struct {
	At   time.Time
	By   string // "" for the overseer
	What string // said in words: "claimed by BlueLake", "closed: done"
}

// TaskView is a task's page: its card, description, history and the
// messages filed under it (its thread).
type TaskView struct {
	Page
	Task     Task
	Children []TaskRef // an epic's tasks
	Thread   string
	Changes  []TaskChange
	Messages []FullMessage
	// Agents are those the overseer may give the task to (its form is
	// shown when Steering.CSRF is set: an open task, not an epic).
	Agents []string
	Steering
	AssignTo string // the agent the form chose, kept when the post failed
}

// Section implements View.
func (TasksView) Section() string { return "tasks" }

// Section implements View.
func (TaskView) Section() string { return "tasks" }

func (TasksView) template() string { return "tasks.html" }
func (TaskView) template() string  { return "task.html" }
