package names_test

import (
	"fmt"

	"github.com/agentmail/agentmail/internal/names"
)

func ExampleParse() {
	name, err := names.Parse("greencastle")
	fmt.Println(name, err)
	_, err = names.Parse("Claude-Code")
	fmt.Println("register:", err)
	_, err = names.Parse("green-castle")
	fmt.Println("register:", err)
	// Output:
	// GreenCastle <nil>
	// register: invalid agent name "Claude-Code": claudecode is a program or model name; agent names are an adjective and a noun, like GreenCastle
	// register: invalid agent name "green-castle": it contains spaces or punctuation; agent names are letters only, like GreenCastle
}

func ExampleClosest() {
	agents := []string{"BlueLake", "GreenCastle", "RedFox"}
	fmt.Println(names.Closest("BlueLak", agents, 1))
	// Output: [BlueLake]
}
