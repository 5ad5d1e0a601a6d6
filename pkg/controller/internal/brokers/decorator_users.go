package brokers

import (
	"context"
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// The SCRAM users calls, decorated as the others are (decorator.go): bound by the reconcile's
// deadline and counted in admin_requests_total.

var _ admin.UsersClient = decoratedAdmin{}

func (d decoratedAdmin) usersInner() (admin.UsersClient, error) {
	uc, ok := d.inner.(admin.UsersClient)
	if !ok {
		return nil, fmt.Errorf("admin client %T has no users calls", d.inner)
	}
	return uc, nil
}

func (d decoratedAdmin) Users(ctx context.Context) ([]string, error) {
	return decorate(ctx, d, "users", func(ctx context.Context) ([]string, error) {
		uc, err := d.usersInner()
		if err != nil {
			return nil, err
		}
		return uc.Users(ctx)
	})
}

func (d decoratedAdmin) CreateUser(ctx context.Context, u admin.User) error {
	return decorateErr(ctx, d, "create_user", func(ctx context.Context) error {
		uc, err := d.usersInner()
		if err != nil {
			return err
		}
		return uc.CreateUser(ctx, u)
	})
}

func (d decoratedAdmin) UpdateUser(ctx context.Context, u admin.User) error {
	return decorateErr(ctx, d, "update_user", func(ctx context.Context) error {
		uc, err := d.usersInner()
		if err != nil {
			return err
		}
		return uc.UpdateUser(ctx, u)
	})
}

func (d decoratedAdmin) DeleteUser(ctx context.Context, name string) error {
	return decorateErr(ctx, d, "delete_user", func(ctx context.Context) error {
		uc, err := d.usersInner()
		if err != nil {
			return err
		}
		return uc.DeleteUser(ctx, name)
	})
}

// UsersClientOf is client's users calls.
func UsersClientOf(client admin.Client) (admin.UsersClient, error) {
	if uc, ok := client.(admin.UsersClient); ok {
		return uc, nil
	}
	return decoratedAdmin{inner: client}.usersInner()
}
