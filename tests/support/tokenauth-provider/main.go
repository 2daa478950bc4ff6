// pulumi-resource-tokenauth: a test provider for the runner's seed-000 scenario.
//
// `tokenauth:index:File` is a resource whose real state is a file on disk (`path`, `content`):
// editing the file outside Pulumi makes real drift that refresh finds, and changing `path`
// replaces the resource. It needs no token.
//
// Its configuration takes a `token`. Every resource operation checks that token against a
// "vault": the file named by TOKENAUTH_VAULT, one valid token per line. Revoking a token
// (removing its line) makes refresh and destroy fail while the stale token sits in the state,
// exactly like expired Vault credentials captured by an explicit provider. The function
// `tokenauth:index:getEnv` lets a YAML program read the current token from the environment.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

const version = "0.1.0"

const schema = `{
  "name": "tokenauth",
  "version": "0.1.0",
  "config": {
    "variables": {"token": {"type": "string", "secret": true}}
  },
  "provider": {
    "inputProperties": {"token": {"type": "string", "secret": true}},
    "properties": {"token": {"type": "string", "secret": true}}
  },
  "resources": {
    "tokenauth:index:File": {
      "inputProperties": {"path": {"type": "string"}, "content": {"type": "string"}},
      "requiredInputs": ["path", "content"],
      "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
      "required": ["path", "content"]
    },
    "tokenauth:index:Secret": {
      "inputProperties": {"value": {"type": "string"}},
      "requiredInputs": ["value"],
      "properties": {"value": {"type": "string"}},
      "required": ["value"]
    }
  },
  "functions": {
    "tokenauth:index:getEnv": {
      "inputs": {"properties": {"name": {"type": "string"}}, "required": ["name"]},
      "outputs": {"properties": {"value": {"type": "string"}}, "required": ["value"]}
    }
  }
}`

type tokenProvider struct {
	pulumirpc.UnimplementedResourceProviderServer
	token string
}

func (p *tokenProvider) authorize(operation string) error {
	vault := os.Getenv("TOKENAUTH_VAULT")
	if vault == "" {
		return fmt.Errorf("%s: TOKENAUTH_VAULT is not set", operation)
	}
	content, err := os.ReadFile(vault)
	if err != nil {
		return fmt.Errorf("%s: cannot read the vault: %v", operation, err)
	}
	for _, line := range strings.Split(string(content), "\n") {
		if p.token != "" && strings.TrimSpace(line) == p.token {
			return nil
		}
	}
	return fmt.Errorf("%s: permission denied: the token is revoked or expired", operation)
}

func text(s *structpb.Struct, key string) string {
	if s == nil {
		return ""
	}
	if value, ok := s.Fields[key]; ok {
		if str, ok := value.Kind.(*structpb.Value_StringValue); ok {
			return str.StringValue
		}
	}
	return ""
}

const fileType = "tokenauth:index:File"

func isFile(urn string) bool {
	return strings.Contains(urn, "::"+fileType+"::")
}

func fileProperties(path, content string) (*structpb.Struct, error) {
	return structpb.NewStruct(map[string]interface{}{"path": path, "content": content})
}

func (p *tokenProvider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	return &pulumirpc.GetSchemaResponse{Schema: schema}, nil
}

func (p *tokenProvider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (p *tokenProvider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.News}, nil
}

// A new token updates the provider in place: it never replaces the resources that use it.
func (p *tokenProvider) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	if text(req.Olds, "token") == text(req.News, "token") {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"token"}}, nil
}

func (p *tokenProvider) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	p.token = text(req.Args, "token")
	if p.token == "" {
		p.token = req.Variables["tokenauth:config:token"]
	}
	return &pulumirpc.ConfigureResponse{AcceptSecrets: false, SupportsPreview: true}, nil
}

func (p *tokenProvider) Invoke(_ context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	if req.Tok != "tokenauth:index:getEnv" {
		return nil, fmt.Errorf("unknown function %s", req.Tok)
	}
	result, err := structpb.NewStruct(map[string]interface{}{"value": os.Getenv(text(req.Args, "name"))})
	if err != nil {
		return nil, err
	}
	return &pulumirpc.InvokeResponse{Return: result}, nil
}

func (p *tokenProvider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.News}, nil
}

func (p *tokenProvider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	if isFile(req.Urn) {
		// Compared with the state (outputs), so drift found by refresh is undone by the next up.
		if text(req.Olds, "path") != text(req.News, "path") {
			return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"path"}, Replaces: []string{"path"}}, nil
		}
		if text(req.Olds, "content") != text(req.News, "content") {
			return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"content"}}, nil
		}
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	if text(req.OldInputs, "value") == text(req.News, "value") {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"value"}}, nil
}

func (p *tokenProvider) Create(_ context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	if req.Preview {
		return &pulumirpc.CreateResponse{Properties: req.Properties}, nil
	}
	if isFile(req.Urn) {
		path := text(req.Properties, "path")
		if err := os.WriteFile(path, []byte(text(req.Properties, "content")), 0o644); err != nil {
			return nil, err
		}
		return &pulumirpc.CreateResponse{Id: path, Properties: req.Properties}, nil
	}
	if err := p.authorize("create"); err != nil {
		return nil, err
	}
	return &pulumirpc.CreateResponse{Id: "secret-" + text(req.Properties, "value"), Properties: req.Properties}, nil
}

func (p *tokenProvider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	if isFile(req.Urn) {
		content, err := os.ReadFile(req.Id)
		if os.IsNotExist(err) {
			// Gone outside Pulumi: an empty id tells the engine the resource no longer exists.
			return &pulumirpc.ReadResponse{}, nil
		}
		if err != nil {
			return nil, err
		}
		properties, err := fileProperties(req.Id, string(content))
		if err != nil {
			return nil, err
		}
		return &pulumirpc.ReadResponse{Id: req.Id, Properties: properties, Inputs: properties}, nil
	}
	if err := p.authorize("read"); err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResponse{Id: req.Id, Properties: req.Properties, Inputs: req.Inputs}, nil
}

func (p *tokenProvider) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	if req.Preview {
		return &pulumirpc.UpdateResponse{Properties: req.News}, nil
	}
	if isFile(req.Urn) {
		if err := os.WriteFile(req.Id, []byte(text(req.News, "content")), 0o644); err != nil {
			return nil, err
		}
		return &pulumirpc.UpdateResponse{Properties: req.News}, nil
	}
	if err := p.authorize("update"); err != nil {
		return nil, err
	}
	return &pulumirpc.UpdateResponse{Properties: req.News}, nil
}

func (p *tokenProvider) Delete(_ context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	if isFile(req.Urn) {
		if err := os.Remove(req.Id); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		return &emptypb.Empty{}, nil
	}
	if err := p.authorize("delete"); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

func (p *tokenProvider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (p *tokenProvider) Attach(context.Context, *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func main() {
	err := provider.Main("tokenauth", func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return &tokenProvider{}, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
